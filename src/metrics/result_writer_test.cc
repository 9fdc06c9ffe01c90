#include "metrics/result_writer.h"

#include <gtest/gtest.h>

namespace servebench::metrics {
namespace {

namespace json = boost::json;

RequestRecord Ok(int64_t index, std::vector<std::pair<int64_t, int>> events_ms, int64_t n) {
  RequestRecord r;
  r.index = index;
  r.t_scheduled_ns = 0;
  r.t_sent_ns = 0;
  for (auto [t, k] : events_ms) r.events.push_back({t * 1'000'000, k});
  r.t_first_token_ns = r.events.front().t_ns;
  r.t_last_token_ns = r.events.back().t_ns;
  r.t_done_ns = r.t_last_token_ns;
  r.usage_completion_tokens = n;
  r.usage_prompt_tokens = 10;
  return r;
}

ResultHeader Header() {
  ResultHeader h;
  h.date = "20261129-203000";
  h.model_id = "org/Model-8B";
  h.num_prompts = 2;
  h.max_concurrency = 4;
  h.percentile_metrics = {"ttft", "tpot", "itl", "e2el"};
  h.metric_percentiles = {90, 99, 99.9};
  return h;
}

TEST(ResultWriterTest, TopLevelKeysAreVllmsInOrderWithExtrasNested) {
  std::vector<RequestRecord> rs = {Ok(0, {{10, 1}, {20, 1}}, 2), Ok(1, {{12, 1}, {30, 1}}, 2)};
  SummaryInputs in;
  in.requested_prompts = 2;
  RunSummary s = ComputeRunSummary(rs, in);
  json::object o = BuildResultJson(s, Header(), rs);
  std::vector<std::string> keys;
  for (const auto& kv : o) keys.emplace_back(kv.key());
  std::vector<std::string> head = {"date",
                                   "endpoint_type",
                                   "backend",
                                   "label",
                                   "model_id",
                                   "tokenizer_id",
                                   "num_prompts",
                                   "request_rate",
                                   "burstiness",
                                   "max_concurrency",
                                   "duration",
                                   "benchmark_start_time_unix",
                                   "benchmark_end_time_unix",
                                   "completed",
                                   "failed"};
  ASSERT_GE(keys.size(), head.size());
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + head.size()), head);
  EXPECT_EQ(o.at("request_rate").as_string(), "inf");
  EXPECT_DOUBLE_EQ(o.at("p99.9_ttft_ms").as_double(), s.ttft.At(99.9).value());
  EXPECT_TRUE(o.contains("mean_tpot_ms"));
  EXPECT_FALSE(o.contains("ttfts"));  // only with save_detailed
  // Only the compatible keys at top level: nothing new ends in "ms" or holds "tpot".
  for (const std::string& k : keys) {
    if (k.ends_with("ms") || k.find("tpot") != std::string::npos) {
      EXPECT_TRUE(k.starts_with("mean_") || k.starts_with("median_") || k.starts_with("std_") ||
                  k.starts_with("p"))
          << k;
    }
  }
  const json::object& sb = o.at("servebench").as_object();
  EXPECT_TRUE(sb.at("validity").as_object().at("valid").as_bool());
  EXPECT_TRUE(sb.at("stats").as_object().contains("itl_per_token_ms"));
}

TEST(ResultWriterTest, EmptyTpotIsOmittedAndOtherEmptyStatsAreZero) {
  std::vector<RequestRecord> rs = {Ok(0, {{10, 1}}, 1)};
  SummaryInputs in;
  in.requested_prompts = 1;
  json::object o = BuildResultJson(ComputeRunSummary(rs, in), Header(), rs);
  EXPECT_FALSE(o.contains("mean_tpot_ms"));
  EXPECT_FALSE(o.contains("p99_tpot_ms"));
  EXPECT_DOUBLE_EQ(o.at("mean_itl_ms").as_double(), 0.0);
  EXPECT_TRUE(o.at("servebench")
                  .as_object()
                  .at("stats")
                  .as_object()
                  .at("tpot_ms")
                  .as_object()
                  .at("mean")
                  .is_null());
}

TEST(ResultWriterTest, UnlimitedConcurrencyIsWrittenAsPromptCount) {
  ResultHeader h = Header();
  h.max_concurrency = 0;
  std::vector<RequestRecord> rs = {Ok(0, {{10, 1}}, 1)};
  json::object o = BuildResultJson(ComputeRunSummary(rs, {}), h, rs);
  EXPECT_EQ(o.at("max_concurrency").as_int64(), 2);
  EXPECT_TRUE(o.at("servebench").as_object().at("max_concurrency_requested").is_null());
}

TEST(ResultWriterTest, InferenceXProfileHasTheForksKeysAndClientInputTokens) {
  std::vector<RequestRecord> rs = {Ok(0, {{10, 1}, {20, 1}}, 2), Ok(1, {{12, 1}, {30, 1}}, 2)};
  for (RequestRecord& r : rs) r.client_prompt_tokens = 7;  // server said 10
  SummaryInputs in;
  in.requested_prompts = 2;
  in.percentiles = {90, 99, 99.9};
  json::object o = BuildInferenceXResultJson(ComputeRunSummary(rs, in), Header(), rs);
  std::vector<std::string> keys;
  for (const auto& kv : o) keys.emplace_back(kv.key());
  std::vector<std::string> head = {"date",
                                   "backend",
                                   "model_id",
                                   "tokenizer_id",
                                   "best_of",
                                   "num_prompts",
                                   "request_rate",
                                   "burstiness",
                                   "max_concurrency",
                                   "duration",
                                   "benchmark_start_time_unix",
                                   "benchmark_end_time_unix",
                                   "completed",
                                   "total_input_tokens",
                                   "total_output_tokens",
                                   "request_throughput",
                                   "request_goodput:",
                                   "output_throughput",
                                   "total_token_throughput",
                                   "input_lens",
                                   "output_lens"};
  ASSERT_GE(keys.size(), head.size());
  EXPECT_EQ(std::vector<std::string>(keys.begin(), keys.begin() + head.size()), head);
  EXPECT_EQ(o.at("total_input_tokens").as_int64(), 14);
  EXPECT_FALSE(o.contains("failed"));
  EXPECT_FALSE(o.contains("latencies"));
  EXPECT_TRUE(o.contains("p99.9_e2el_ms"));
  EXPECT_EQ(keys.size(), head.size() + 24 + 1);  // 24 statistics + servebench
}

TEST(ResultWriterTest, FilenameFollowsUpstreamPattern) {
  ResultHeader h = Header();
  EXPECT_EQ(DefaultResultFilename(h), "openai-infqps-concurrency4-Model-8B-20261129-203000.json");
  h.request_rate = 10;
  h.max_concurrency = 0;
  h.label = "x";
  EXPECT_EQ(DefaultResultFilename(h), "x-10.0qps-Model-8B-20261129-203000.json");
}

TEST(ResultWriterTest, SummaryTableNamesTheInvalidReason) {
  RequestRecord bad;
  bad.failure = FailureKind::kTimeout;
  bad.error = "deadline";
  SummaryInputs in;
  in.requested_prompts = 1;
  std::string t = FormatSummaryTable(ComputeRunSummary({bad}, in), Header());
  EXPECT_NE(t.find("Serving Benchmark Result"), std::string::npos);
  EXPECT_NE(t.find("failed_requests"), std::string::npos);
}

}  // namespace
}  // namespace servebench::metrics
