// Speculative decoding through real HTTP: the acceptance length computed from
// /metrics counter deltas (metrics.md §7) over ≥ 10,000 drafts is within ±2% of
// the target, per-position counters are consistent, and accepted tokens arrive
// together in one SSE event.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <map>
#include <regex>

#include "sim/testing/sim_process.h"

namespace servebench::sim {
namespace {
namespace json = boost::json;
using testing::Http;
using testing::HttpResponse;
using testing::SimProcess;

// Sums each vllm: counter over its label sets; per-position counters keyed by position.
std::map<std::string, double> Scrape(int port) {
  std::map<std::string, double> out;
  HttpResponse r = Http(port, "GET", "/metrics");
  static const std::regex line(R"re(^(vllm:[a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$)re");
  static const std::regex pos(R"re(position="([0-9]+)")re");
  size_t start = 0;
  while (start < r.body.size()) {
    size_t end = r.body.find('\n', start);
    if (end == std::string::npos) end = r.body.size();
    std::string l = r.body.substr(start, end - start);
    start = end + 1;
    std::smatch m;
    if (!std::regex_match(l, m, line)) continue;
    std::string key = m[1];
    std::string labels = m[2];
    std::smatch p;
    if (std::regex_search(labels, p, pos)) key += "[" + std::string(p[1]) + "]";
    out[key] += std::stod(m[3]);
  }
  return out;
}

TEST(SimSpecDecodeTest, AcceptanceLengthFromMetricsMatchesTargetOver10000Drafts) {
  SimProcess sim({"--time-scale", "0", "--seed", "3", "--speculative-config",
                  R"({"method":"eagle3","model":"draft","num_speculative_tokens":3,)"
                  R"("rejection_sample_method":"synthetic","synthetic_acceptance_length":2.8})"});
  ASSERT_GT(sim.port(), 0) << sim.output();
  auto before = Scrape(sim.port());
  // 16 concurrent streams of 2,000 tokens: ≈ 16 × 2000 / 2.8 ≈ 11,400 drafts.
  std::vector<int> fds;
  const std::string body =
      R"({"prompt":"spec","max_tokens":2000,"ignore_eos":true,"stream":true,)"
      R"("stream_options":{"include_usage":true,"continuous_usage_stats":true}})";
  for (int i = 0; i < 16; ++i)
    fds.push_back(testing::SendOnly(sim.port(), "POST", "/v1/completions", body));
  int multi_token_events = 0, max_k = 0;
  for (int fd : fds) {
    HttpResponse r = testing::ReadResponse(fd, 60);
    ASSERT_TRUE(r.complete);
    int64_t last = 0;
    for (const auto& e : r.data_events) {
      if (e == "[DONE]") continue;
      json::value v = json::parse(e);
      int64_t c = v.at("usage").at("completion_tokens").as_int64();
      if (!v.at("choices").as_array().empty() && c - last > 1) ++multi_token_events;
      max_k = std::max<int>(max_k, static_cast<int>(c - last));
      last = c;
    }
    EXPECT_EQ(last, 2000);
  }
  auto after = Scrape(sim.port());
  double drafts =
      after["vllm:spec_decode_num_drafts_total"] - before["vllm:spec_decode_num_drafts_total"];
  double draft_tokens = after["vllm:spec_decode_num_draft_tokens_total"] -
                        before["vllm:spec_decode_num_draft_tokens_total"];
  double accepted = after["vllm:spec_decode_num_accepted_tokens_total"] -
                    before["vllm:spec_decode_num_accepted_tokens_total"];
  ASSERT_GE(drafts, 10000);
  EXPECT_DOUBLE_EQ(draft_tokens, 3 * drafts);
  double al = 1 + accepted / drafts;
  EXPECT_NEAR(al, 2.8, 2.8 * 0.02) << "AL " << al << " over " << drafts << " drafts";
  double per_pos_sum = 0, prev = drafts;
  for (int k = 0; k < 3; ++k) {
    std::string key =
        "vllm:spec_decode_num_accepted_tokens_per_pos_total[" + std::to_string(k) + "]";
    double v = after[key] - before[key];
    EXPECT_LE(v, prev) << "position " << k << " can only be accepted after position " << k - 1;
    prev = v;
    per_pos_sum += v;
  }
  EXPECT_DOUBLE_EQ(per_pos_sum, accepted);
  EXPECT_GT(multi_token_events, 1000) << "accepted tokens travel in one SSE event";
  EXPECT_EQ(max_k, 4);
}

}  // namespace
}  // namespace servebench::sim
