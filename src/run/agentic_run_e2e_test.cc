// An InferenceX agentic-coding row end to end: `servebench run` on the NVIDIA master
// config's minimaxm3-fp8-h200-vllm-agentic-mtp key, rehearsed on the simulator, replays
// a generated Weka-format corpus in closed-loop lanes for a --duration shorter than the
// row's 3600 s, with the prefix cache the row's launch script turns on and the row's chat
// prompts with AIPerf's cache bust; and the plan-time errors of a run that has no trace
// to replay.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/testing/files.h"
#include "common/testing/shell.h"

namespace {

namespace fs = std::filesystem;
using servebench::testing::ShellResult;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kKey = "minimaxm3-fp8-h200-vllm-agentic-mtp";

class AgenticRunE2eTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = servebench::testing::FreshTestDir("agentic_run"); }
  void TearDown() override { fs::remove_all(dir_); }

  // 8 trajectories under InferenceX's loader folder for minimaxm3: 5 root turns whose
  // history grows by a few 64-token blocks a turn, and a subagent of 2 turns spawned by
  // root turn 1 (its own blocks, shared by its 2 turns).
  void WriteCorpus() {
    const fs::path folder = dir_ / "corpora" / "semianalysis_cc_traces_weka_062126";
    fs::create_directories(folder);
    std::ofstream out(folder / "traces.jsonl");
    for (int t = 0; t < 8; ++t) {
      boost::json::array requests, ids;
      double at = 0;
      for (int k = 0; k < 5; ++k) {
        for (int b = 0; b < 4 + (k + t) % 3; ++b) ids.push_back(1000 * t + ids.size());
        requests.push_back(boost::json::object{{"type", "n"},
                                               {"t", at},
                                               {"in", static_cast<int64_t>(ids.size()) * 64 + 10},
                                               {"out", 16 + 8 * ((k + t) % 4)},
                                               {"hash_ids", ids},
                                               {"api_time", 1.0}});
        if (k == 1) {
          boost::json::array sub{
              boost::json::object{{"type", "n"},
                                  {"t", at + 1.5},
                                  {"in", 256},
                                  {"out", 8},
                                  {"hash_ids", {900 + 10 * t, 901 + 10 * t}},
                                  {"api_time", 0.5}},
              boost::json::object{{"type", "n"},
                                  {"t", at + 2.5},
                                  {"in", 384},
                                  {"out", 8},
                                  {"hash_ids", {900 + 10 * t, 901 + 10 * t, 902 + 10 * t}},
                                  {"api_time", 0.5}}};
          requests.push_back(boost::json::object{{"type", "subagent"},
                                                 {"agent_id", "sub"},
                                                 {"t", at + 1.5},
                                                 {"requests", std::move(sub)}});
        }
        at += 2.0 + (t % 3);
      }
      out << boost::json::serialize(boost::json::object{{"id", "traj" + std::to_string(t)},
                                                        {"block_size", 64},
                                                        {"requests", std::move(requests)}})
          << "\n";
    }
  }

  // `servebench run` of the key at --conc 4 on the sim. The suite shares two cores and
  // the clock is compressed 20x: lateness is not what this test is about.
  ShellResult Run(const std::string& extra) {
    return servebench::testing::RunShell(
        std::string(SERVEBENCH_BIN) + " run " + SERVEBENCH_SOURCE_DIR +
        "/src/recipe/testdata/nvidia-master.yaml --config-keys " + kKey +
        " --scenario-type agentic-coding --conc 4 --engine sim --sim-time-scale 0.05 "
        "--no-evals --gpu-telemetry none --idle-power-s 0 --issue-delay-limit-ms 1e9 "
        "--server-lag-limit-ms 1e9 --out " +
        (dir_ / "out").string() + " --db " + (dir_ / "sb.db").string() + " " + extra);
  }

  std::vector<boost::json::object> Records() {
    std::vector<boost::json::object> out;
    const fs::path records = dir_ / "out" / "records";
    if (!fs::exists(records)) return out;
    for (const auto& e : fs::directory_iterator(records)) {
      out.push_back(
          boost::json::parse(servebench::testing::ReadFileOrEmpty(e.path().string())).as_object());
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(AgenticRunE2eTest, TheRowReplaysItsCorpusInLanesWithThePrefixCacheItsScriptTurnsOn) {
  WriteCorpus();
  ShellResult r = Run("--trace " + (dir_ / "corpora").string() + " --duration 120");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 1u) << r.output;
  const boost::json::object& rec = records[0];
  EXPECT_EQ(rec.at("status").as_string(), "ok") << rec.at("failure_reason");
  EXPECT_EQ(rec.at("stands_in_for").as_string(), "vllm");
  const boost::json::object& sb = rec.at("summary").at("servebench").as_object();

  // The trace the row's model prefix resolves to, in 4 lanes of live trees.
  const boost::json::object& trace = sb.at("trace").as_object();
  EXPECT_EQ(trace.at("format").as_string(), "weka_trace");
  EXPECT_THAT(std::string(trace.at("path").as_string()),
              HasSubstr("semianalysis_cc_traces_weka_062126"));
  EXPECT_EQ(trace.at("schedule").as_string(), "lanes");
  EXPECT_EQ(trace.at("lanes").as_int64(), 4);
  EXPECT_LE(trace.at("max_live_trees").as_int64(), 4);
  // ... replayed as InferenceX has AIPerf replay them: idle caps, start positions
  // within 25-75 % of each lane's first trajectory (5 root turns: turn 2 or 3), warm-up.
  EXPECT_EQ(trace.at("trace_idle_gap_cap_s").to_number<double>(), 300);
  EXPECT_EQ(trace.at("system_idle_gap_cap_s").to_number<double>(), 10);
  EXPECT_EQ(trace.at("warmup_requests_per_lane").as_int64(), 10);
  ASSERT_EQ(trace.at("start_turns").as_array().size(), 4u);
  for (const auto& k : trace.at("start_turns").as_array()) {
    EXPECT_GE(k.as_int64(), 2);
    EXPECT_LE(k.as_int64(), 3);
  }
  EXPECT_GT(trace.at("warmup_requests").as_int64(), 0);
  // ... on the chat endpoint, each turn one user message of exactly its input_length
  // through the sim's /tokenize, with AIPerf's cache-bust marker (reference §1.4).
  EXPECT_EQ(trace.at("prompts").as_string(), "chat_messages");
  EXPECT_EQ(trace.at("assistant_turns").as_string(), "pre-canned");
  EXPECT_EQ(trace.at("cache_bust").as_string(), "first_turn_prefix");
  EXPECT_EQ(trace.at("cache_bust_run_id").as_string().size(), 16u);
  EXPECT_TRUE(trace.at("prompts_note").is_null());

  // The sim served with vLLM's prefix cache in 128-token blocks (the launch script's
  // --enable-prefix-caching --block-size 128), and its hits are the ones the trace
  // should give in those blocks.
  const boost::json::object& cache = sb.at("prefix_cache").as_object();
  EXPECT_EQ(cache.at("engine_block_tokens").as_int64(), 128);
  const double expected = cache.at("expected").at("token_fraction_infinite").to_number<double>();
  EXPECT_GT(expected, 0.2) << cache;
  ASSERT_TRUE(cache.at("server").is_object()) << cache;
  EXPECT_NEAR(cache.at("server").at("hit_rate").to_number<double>(), expected, 0.01) << cache;
  EXPECT_EQ(cache.at("agree").as_bool(), true);
  std::printf("hit rate: server %.6f, expected %.6f (token fraction, infinite cache)\n",
              cache.at("server").at("hit_rate").to_number<double>(), expected);

  // The point's serve session is the row's batch cap (2 x CONC) on the simulated H200.
  const std::string point = boost::json::serialize(rec.at("point"));
  EXPECT_THAT(point, HasSubstr(R"("max-num-seqs":"8")"));
  EXPECT_THAT(point, HasSubstr(R"("enable-prefix-caching":"")"));
  EXPECT_THAT(point, HasSubstr(R"("endpoint":"/v1/chat/completions")"));

  // InferenceX's aggregate of the point (run/agentic_result.h), named by the record, with
  // the record's own counts and medians (in seconds, rounded to 5 decimals).
  const std::string aggregate_path =
      std::string(rec.at("artifacts").at("inferencex_result").as_string());
  ASSERT_THAT(aggregate_path, HasSubstr("/inferencex/"));
  const boost::json::object aggregate =
      boost::json::parse(servebench::testing::ReadFileOrEmpty(aggregate_path)).as_object();
  const boost::json::object& summary = rec.at("summary").as_object();
  EXPECT_EQ(aggregate.at("scenario_type").as_string(), "agentic-coding");
  EXPECT_EQ(aggregate.at("conc").to_number<int64_t>(), 4);
  EXPECT_EQ(aggregate.at("num_requests_successful").to_number<int64_t>(),
            summary.at("completed").to_number<int64_t>());
  EXPECT_NEAR(
      aggregate.at("request_metrics").at("latency").at("ttft").at("p50").to_number<double>(),
      summary.at("median_ttft_ms").to_number<double>() / 1000, 1e-5);
  EXPECT_NEAR(aggregate.at("request_metrics")
                  .at("cache")
                  .at("theoretical_cache_hit_rate")
                  .to_number<double>(),
              cache.at("expected").at("block_fraction").to_number<double>(), 1e-4);
  EXPECT_EQ(aggregate.at("dataset").at("prompts").as_string(), "chat_messages");
  EXPECT_EQ(aggregate.at("dataset").at("cache_bust").as_string(), "first_turn_prefix");
  const fs::path aiperf = fs::path(aggregate_path).parent_path() /
                          ("agentic_" + fs::path(aggregate_path).stem().string()) /
                          "aiperf_artifacts";
  EXPECT_TRUE(fs::exists(aiperf / "profile_export.jsonl")) << aiperf;
  EXPECT_TRUE(fs::exists(aiperf / "profile_export_aiperf.json")) << aiperf;

  // KV usage over the measured phase (scraped once a second, and at its end), the series
  // the record names, and InferenceX's server_metrics block filled from it: the sim's GPU
  // hit rate as InferenceX's vLLM adapter reads it is the one servebench measured.
  const boost::json::object& kv = sb.at("kv_usage").as_object();
  EXPECT_GE(kv.at("scrapes").as_int64(), 2) << kv;
  EXPECT_EQ(kv.at("source").as_string(), "vllm") << kv;
  EXPECT_TRUE(kv.at("gpu").is_object()) << kv;
  EXPECT_TRUE(fs::exists(std::string(rec.at("artifacts").at("server_metrics").as_string())))
      << rec.at("artifacts");
  EXPECT_TRUE(fs::exists(aiperf / "server_metrics_export.json")) << aiperf;
  const boost::json::object& sm = aggregate.at("server_metrics").as_object();
  EXPECT_TRUE(sm.at("present").as_bool());
  EXPECT_EQ(sm.at("adapter").as_string(), "vllm");
  EXPECT_NEAR(sm.at("cache").at("gpu_cache_hit_rate").to_number<double>(),
              cache.at("server").at("hit_rate").to_number<double>(), 1e-4);
  EXPECT_FALSE(aggregate.contains("warnings"));

  // InferenceX's own validator on them, when a checkout is at hand (never committed).
  if (const char* root = std::getenv("SERVEBENCH_INFERENCEX_ROOT")) {
    ShellResult v = servebench::testing::RunShell(
        std::string("python3 ") + root + "/utils/agentic/validation/validate_agentic_result.py " +
        aiperf.string() + " --failed-request-threshold 0.10");
    EXPECT_EQ(v.exit_code, 0) << v.output;
    std::printf("InferenceX's validator: %s", v.output.c_str());
  }
}

TEST_F(AgenticRunE2eTest, TheDryRunSaysTheRowSendsChatMessagesWithTheCacheBust) {
  WriteCorpus();
  ShellResult r = Run("--trace " + (dir_ / "corpora").string() + " --duration 120 --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("concurrency = live trees, 120 s per point, to "
                                  "/v1/chat/completions\n"));
  EXPECT_THAT(r.output, HasSubstr("as chat messages of exact length through the engine's "
                                  "/tokenize, --cache-bust first_turn_prefix"));
  EXPECT_THAT(r.output, Not(HasSubstr("starting sim")));
}

TEST_F(AgenticRunE2eTest, WithoutATraceNothingStartsAndTheErrorNamesTheCorpus) {
  ShellResult r = Run("");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("needs a trace to replay: --trace PATH"));
  EXPECT_THAT(r.output, HasSubstr("semianalysis_cc_traces_weka_062126/"));
  EXPECT_THAT(r.output, Not(HasSubstr("starting sim")));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "records"));

  ShellResult absent = Run("--trace " + (dir_ / "no-such-corpus").string());
  EXPECT_EQ(absent.exit_code, 1) << absent.output;
  EXPECT_THAT(absent.output, HasSubstr("no-such-corpus"));
  EXPECT_THAT(absent.output, Not(HasSubstr("starting sim")));
}

}  // namespace
