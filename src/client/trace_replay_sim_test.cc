// Trace replay against the real `servebench sim` over loopback, with the sim's prefix
// cache on: the server-side hit rate (the sim's vllm:prefix_cache_hits/queries
// counters) must match the client-side expected fraction (trace/expected_hits.h)
// computed from the trace's hash ids — within 1 point with ample KV, within 3 points
// of the LRU model when the KV pool is below the working set — and a replay against
// an engine that does not cache is invalid (prefix_hits_disagree).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "client/client.h"
#include "common/exit_codes.h"
#include "common/testing/files.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

using sim::testing::SimProcess;

// A multi-turn Mooncake trace (AIPerf's --isl-block-size 64): 6 conversations of 5
// turns, started 50 ms apart, a turn every 400 ms. Turn k of a conversation carries
// its first 2(k+1) blocks (the history: the previous turn's blocks plus two more)
// and a cut last block of 30 fresh tokens with an id of its own, as Mooncake's
// chained hashes give a partial block.
std::string WriteMultiTurnTrace() {
  const std::string path = servebench::testing::FreshTestDir("replay") + "/conversations.jsonl";
  std::ofstream out(path);
  uint64_t fresh_id = 100000;
  for (int turn = 0; turn < 5; ++turn) {
    for (int conv = 0; conv < 6; ++conv) {
      boost::json::array ids;
      for (int b = 0; b < 2 * (turn + 1); ++b) ids.push_back(conv * 1000 + b);
      ids.push_back(fresh_id++);
      boost::json::object row{{"timestamp", conv * 50 + turn * 400},
                              {"input_length", 128 * (turn + 1) + 30},
                              {"output_length", 8},
                              {"hash_ids", std::move(ids)}};
      out << boost::json::serialize(row) << "\n";
    }
  }
  return path;
}

// Σ engine hit tokens / Σ prompt tokens with an infinite cache, per conversation:
// turn k reuses the 128·k tokens of its history out of 128·(k + 1) + 30.
constexpr double kInfiniteFraction = (128.0 * (0 + 1 + 2 + 3 + 4)) / (128.0 * 15 + 5 * 30);

BenchSettings Replay(const SimProcess& sim, const std::string& trace) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.dataset_name = "mooncake_trace";
  s.dataset_path = trace;
  s.trace_block_tokens = 64;
  s.trace_speedup = 10;
  s.engine_block_tokens = 16;
  s.ignore_eos = true;
  s.request_timeout_s = 20;
  s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  return s;
}

struct Rates {
  double server = -1, infinite = -1, lru = -1;
  bool valid = false;
  std::string validity;
};

Rates RunReplay(const BenchSettings& s) {
  Rates rates;
  auto r = RunBench(s);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return rates;
  EXPECT_EQ(r->summary.completed, 30);
  const boost::json::object& pc = r->result.at("servebench").at("prefix_cache").as_object();
  if (pc.at("server").is_object())
    rates.server = pc.at("server").at("hit_rate").to_number<double>();
  rates.infinite = pc.at("expected").at("token_fraction_infinite").to_number<double>();
  if (!pc.at("expected").at("token_fraction_lru").is_null()) {
    rates.lru = pc.at("expected").at("token_fraction_lru").to_number<double>();
  }
  rates.valid = r->summary.validity.valid();
  rates.validity = boost::json::serialize(r->result.at("servebench").at("validity"));
  return rates;
}

TEST(TraceReplaySimTest, WithAmpleKvTheServerHitRateIsTheExpectedFraction) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  const Rates rates = RunReplay(Replay(sim, WriteMultiTurnTrace()));
  EXPECT_NEAR(rates.infinite, kInfiniteFraction, 1e-6);
  EXPECT_NEAR(rates.server, rates.infinite, 0.01);
  EXPECT_TRUE(rates.valid) << rates.validity;
}

TEST(TraceReplaySimTest, WithKvBelowTheWorkingSetBothDropAndAgreeWithTheLruModel) {
  // 180 blocks of 16 tokens: the 6 live histories (up to 43 blocks each, with their
  // output) do not all fit; about half of the hits survive.
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--num-gpu-blocks-override",
                  "180", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, WriteMultiTurnTrace());
  s.engine_kv_blocks = 180;
  const Rates rates = RunReplay(s);
  EXPECT_LT(rates.lru, rates.infinite - 0.1);
  EXPECT_LT(rates.server, rates.infinite - 0.1);
  EXPECT_NEAR(rates.server, rates.lru, 0.03);
  EXPECT_TRUE(rates.valid) << rates.validity;
}

TEST(TraceReplaySimTest, AnEngineThatDoesNotCacheMakesTheReplayInvalid) {
  SimProcess sim({"--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  const Rates rates = RunReplay(Replay(sim, WriteMultiTurnTrace()));
  EXPECT_NEAR(rates.server, 0.0, 1e-9);
  EXPECT_FALSE(rates.valid);
  EXPECT_NE(rates.validity.find("prefix_hits_disagree"), std::string::npos) << rates.validity;
}

TEST(TraceReplaySimTest, ABadTraceRowFailsBeforeAnythingIsSent) {
  SimProcess sim({"--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  const std::string path = servebench::testing::FreshTestDir("replay") + "/bad.jsonl";
  std::ofstream(path) << R"({"timestamp": 0, "input_length": 10, "output_length": 0})"
                      << "\n";
  BenchSettings s = Replay(sim, path);
  auto r = RunBench(s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("bad.jsonl:1: output_length = 0: must be an integer >= 1"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace servebench::client
