// A multi-turn trace replayed against a real, unpatched llama-server, whose prompt
// cache is real (label realengine): each slot keeps the tokens of its last request
// and a new prompt reuses their longest common prefix, so a conversation's turns,
// each extending the one before, are served mostly from the cache. The server-side
// hit rate (llamacpp:prompt_tokens_cached_total over all prompt tokens) must equal
// the client's expected fraction (trace/expected_hits.h, token-granular: llama.cpp
// matches tokens, not blocks) within a point, and the replay must be valid.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>

#include "client/client.h"
#include "common/testing/files.h"
#include "engine/testing/real_llama.h"

namespace servebench::client {
namespace {

using engine::testing::LlamaServer;
using engine::testing::LlamaServerOptions;

// 3 conversations of 4 turns in Mooncake's format with 64-token blocks, one after
// another, replayed in one lane: turn k holds 2(k + 1) whole blocks, the previous
// turn's prompt plus two fresh blocks. With one slot the conversations never evict
// each other mid-way, so the cache llama.cpp keeps is the one the model assumes.
std::string WriteConversations() {
  const std::string path =
      servebench::testing::FreshTestDir("llamacpp-replay") + "/conversations.jsonl";
  std::ofstream out(path);
  for (int conv = 0; conv < 3; ++conv) {
    for (int turn = 0; turn < 4; ++turn) {
      boost::json::array ids;
      for (int b = 0; b < 2 * (turn + 1); ++b) ids.push_back(conv * 1000 + b);
      boost::json::object row{{"timestamp", (conv * 4 + turn) * 300},
                              {"input_length", 64 * 2 * (turn + 1)},
                              {"output_length", 8},
                              {"hash_ids", std::move(ids)}};
      out << boost::json::serialize(row) << "\n";
    }
  }
  return path;
}

// Per conversation, turn k reuses the 128·k tokens of turn k − 1 out of 128·(k + 1).
constexpr double kExpectedFraction = (128.0 * (0 + 1 + 2 + 3)) / (128.0 * (1 + 2 + 3 + 4));

TEST(LlamacppReplayTest, AMultiTurnReplayIsServedFromThePromptCacheAsTheClientExpects) {
  auto llama = engine::testing::LoadRealLlama();
  ASSERT_TRUE(llama.ok()) << llama.status().ToString();
  LlamaServerOptions options;
  options.slots = 1;
  auto started = LlamaServer::Start(
      *llama, options,
      ::testing::TempDir() + "/llamacpp-replay-" + std::to_string(getpid()) + ".log");
  ASSERT_TRUE(started.ok()) << started.status().ToString();

  BenchSettings s;
  s.base_url = (*started)->base_url();
  s.model = "tiny";
  s.dataset_name = "mooncake_trace";
  s.dataset_path = WriteConversations();
  s.trace_block_tokens = 64;
  s.engine_block_tokens = 1;  // what KvBlockTokens says of a llamacpp serve spec
  // One closed-loop lane: each turn is sent when the one before has completed, so the
  // slot serves the turns in the trace's order however loaded the machine is (on the
  // recorded schedule a late turn could overlap the next conversation's first).
  s.max_concurrency = 1;
  s.ignore_eos = true;
  s.request_timeout_s = 60;
  s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: lateness is not under test
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.failed, 0) << metrics::FailureSummary(r->summary);
  EXPECT_EQ(r->summary.completed, 12);

  const boost::json::object& pc = r->result.at("servebench").at("prefix_cache").as_object();
  ASSERT_TRUE(pc.at("server").is_object()) << boost::json::serialize(pc);
  EXPECT_EQ(pc.at("server").at("source").as_string(), "llamacpp");
  const double server_rate = pc.at("server").at("hit_rate").to_number<double>();
  const double expected = pc.at("expected").at("token_fraction_infinite").to_number<double>();
  EXPECT_NEAR(expected, kExpectedFraction, 1e-9);
  EXPECT_NEAR(server_rate, expected, 0.01);
  EXPECT_TRUE(r->summary.validity.valid())
      << boost::json::serialize(r->result.at("servebench").at("validity"));
  std::printf(
      "REPORT llamacpp replay: 12 turns of 3 conversations, server hit rate %.4f, expected "
      "%.4f, mean TTFT %.2f ms\n",
      server_rate, expected, r->summary.ttft.mean);
}

}  // namespace
}  // namespace servebench::client
