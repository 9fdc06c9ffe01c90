// Trace replay against the real `servebench sim` over loopback, with the sim's prefix
// cache on: the server-side hit rate (the sim's vllm:prefix_cache_hits/queries
// counters) must match the client-side expected fraction (trace/expected_hits.h)
// computed from the trace's hash ids — within 1 point with ample KV, within 3 points
// of the LRU model when the KV pool is below the working set — and a replay against
// an engine that does not cache is invalid (prefix_hits_disagree).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>

#include "client/client.h"
#include "client/server_tokenizer.h"
#include "common/exit_codes.h"
#include "common/testing/files.h"
#include "net/url.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

using sim::testing::SimProcess;

// A multi-turn Mooncake trace (AIPerf's --isl-block-size 64): 6 conversations of 5
// turns, started 50 ms apart, a turn every 400 ms. Turn k of a conversation carries
// its first 2(k+1) blocks (the history: the previous turn's blocks plus two more)
// and a cut last block of 30 fresh tokens with an id of its own, as Mooncake's
// chained hashes give a partial block.
// With `sessions`, each conversation's rows carry its session_id (one tree per
// conversation, as a cache bust sees them); without, every row is a tree of its own.
// `scale` multiplies the block size and so every prompt's history (the offload test's
// prompts are long enough for prefill to dominate their TTFT).
std::string WriteMultiTurnTrace(bool sessions = false, int scale = 1) {
  const std::string path = servebench::testing::FreshTestDir("replay") + "/conversations.jsonl";
  std::ofstream out(path);
  uint64_t fresh_id = 100000;
  for (int turn = 0; turn < 5; ++turn) {
    for (int conv = 0; conv < 6; ++conv) {
      boost::json::array ids;
      for (int b = 0; b < 2 * (turn + 1); ++b) ids.push_back(conv * 1000 + b);
      ids.push_back(fresh_id++);
      boost::json::object row{{"timestamp", conv * 50 + turn * 400},
                              {"input_length", 128 * scale * (turn + 1) + 30},
                              {"output_length", 8},
                              {"hash_ids", std::move(ids)}};
      if (sessions) row["session_id"] = fmt::format("conv-{}", conv);
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
  s.server_lag_limit_ms = 1e9;          // ... nor the sim's lateness at time scale 0.01
  return s;
}

struct Rates {
  double server = -1, infinite = -1, lru = -1;
  double mean_ttft_ms = -1;
  bool valid = false;
  std::string validity;
  int64_t paced_workers = 0, realtime_pacers = 0;  // servebench.client.pacer
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
  rates.mean_ttft_ms = r->summary.ttft.mean;
  rates.valid = r->summary.validity.valid();
  rates.validity = boost::json::serialize(r->result.at("servebench").at("validity"));
  const boost::json::value& pacer = r->result.at("servebench").at("client").at("pacer");
  if (pacer.is_object()) {
    rates.paced_workers = pacer.at("workers").to_number<int64_t>();
    rates.realtime_pacers = pacer.at("realtime").to_number<int64_t>();
  }
  return rates;
}

TEST(TraceReplaySimTest, WithAmpleKvTheServerHitRateIsTheExpectedFraction) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  const Rates rates = RunReplay(Replay(sim, WriteMultiTurnTrace()));
  EXPECT_NEAR(rates.infinite, kInfiniteFraction, 1e-6);
  EXPECT_NEAR(rates.server, rates.infinite, 0.01);
  EXPECT_TRUE(rates.valid) << rates.validity;
  // A fixed schedule on plain HTTP: a pacing thread sent, real-time where the host
  // allows it (the result says which, not this test).
  EXPECT_GE(rates.paced_workers, 1);
  EXPECT_LE(rates.realtime_pacers, rates.paced_workers);
}

// The same 6 conversations of 5 turns as a Bailian file: each turn continues the one
// before (parent_chat_id), timestamps in seconds, 16-token blocks; turn k holds 2(k+1)
// full blocks (its history plus two) and 5 fresh tokens.
std::string WriteBailianTrace() {
  const std::string path = servebench::testing::FreshTestDir("replay") + "/qwen_traceA.jsonl";
  std::ofstream out(path);
  for (int turn = 0; turn < 5; ++turn) {
    for (int conv = 0; conv < 6; ++conv) {
      boost::json::array ids;
      for (int b = 0; b < 2 * (turn + 1); ++b) ids.push_back(conv * 1000 + b);
      const int chat = conv * 10 + turn;
      boost::json::object row{{"chat_id", chat},
                              {"parent_chat_id", turn == 0 ? -1 : chat - 1},
                              {"timestamp", conv * 0.05 + turn * 0.4},
                              {"input_length", 32 * (turn + 1) + 5},
                              {"output_length", 8},
                              {"type", "text"},
                              {"turn", turn + 1},
                              {"hash_ids", std::move(ids)}};
      out << boost::json::serialize(row) << "\n";
    }
  }
  return path;
}

TEST(TraceReplaySimTest, ABailianTraceBuildsThePrefixesItsSessionsShare) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, WriteBailianTrace());
  s.dataset_name = "bailian_trace";
  s.trace_block_tokens = 0;  // the format's 16
  const Rates rates = RunReplay(s);
  // Turn k reuses its 32k-token history out of 32(k+1) + 5 tokens.
  EXPECT_NEAR(rates.infinite, 32.0 * (0 + 1 + 2 + 3 + 4) / (32.0 * 15 + 5 * 5), 1e-6);
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

// Llama-3.1-8B in BF16: 131,072 bytes of KV per token on one GPU, 16-token blocks.
constexpr double kBlockGb = 16 * 131072 / 1e9;

TEST(TraceReplaySimTest, ACpuOffloadTierRaisesTheHitRateAndLowersTtftAndMatchesTheLruOfBothTiers) {
  // The trace and pool of the test above, 8 times larger (512-token ids, prompts up to
  // 5,150 tokens, 1,440 GPU blocks), then 800 blocks in host memory: evicted histories
  // come back over the host link (~10 ms for 4,000 tokens) instead of being prefilled
  // again (~100 ms).
  SimProcess gpu_only({"--enable-prefix-caching", "--block-size", "16", "--num-gpu-blocks-override",
                       "1440", "--time-scale", "0.01"});
  SimProcess offload({"--enable-prefix-caching", "--block-size", "16", "--num-gpu-blocks-override",
                      "1440", "--kv-offload-gb", fmt::format("{}", 800.5 * kBlockGb),
                      "--time-scale", "0.01"});
  ASSERT_TRUE(gpu_only.ready()) << gpu_only.output();
  ASSERT_TRUE(offload.ready()) << offload.output();
  const std::string trace = WriteMultiTurnTrace(/*sessions=*/false, /*scale=*/8);
  BenchSettings without = Replay(gpu_only, trace);
  without.trace_block_tokens = 512;
  without.engine_kv_blocks = 1440;
  const Rates base = RunReplay(without);
  BenchSettings with = Replay(offload, trace);
  with.trace_block_tokens = 512;
  with.engine_kv_blocks = 1440 + 800;  // the expected-hit model's LRU of both tiers
  const Rates tiered = RunReplay(with);
  EXPECT_GT(tiered.server, base.server + 0.05);
  EXPECT_LT(tiered.mean_ttft_ms, base.mean_ttft_ms);
  EXPECT_NEAR(base.server, base.lru, 0.03);
  EXPECT_NEAR(tiered.server, tiered.lru, 0.03);
  EXPECT_TRUE(tiered.valid) << tiered.validity;
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

// On the chat endpoint each turn is one user message of exactly input_length tokens
// through the sim's template (its /tokenize), equal ids are identical text at
// identical positions, and so the sim's prefix cache hits what the trace says.
TEST(TraceReplaySimTest, OnTheChatEndpointEveryPromptIsExactAndTheHitRatesAgree) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, WriteMultiTurnTrace());
  s.backend = "openai-chat";  // --endpoint /v1/chat/completions
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 30);
  int64_t sent = 0;
  for (const metrics::RequestRecord& rec : r->records) {
    // The server's usage.prompt_tokens is the trace's input_length.
    EXPECT_EQ(rec.usage_prompt_tokens, rec.client_prompt_tokens);
    sent += rec.client_prompt_tokens;
  }
  EXPECT_EQ(sent, 6 * (128 * 15 + 5 * 30));
  const boost::json::object& sb = r->result.at("servebench").as_object();
  EXPECT_EQ(sb.at("trace").at("prompts").as_string(), "chat_messages");
  EXPECT_EQ(sb.at("trace").at("assistant_turns").as_string(), "pre-canned");
  const boost::json::object& pc = sb.at("prefix_cache").as_object();
  const double expected = pc.at("expected").at("token_fraction_infinite").to_number<double>();
  EXPECT_NEAR(expected, kInfiniteFraction, 1e-6);
  EXPECT_NEAR(pc.at("server").at("hit_rate").to_number<double>(), expected, 0.01);
  EXPECT_TRUE(r->summary.validity.valid()) << boost::json::serialize(sb.at("validity"));
}

// The same replay twice against one sim: without a cache bust the second run's
// prompts are the first run's (same seed), so the engine hits far more than the trace
// says and the run is invalid; with --cache-bust first_turn_prefix each run's markers
// are its own and the second run agrees with the trace again.
TEST(TraceReplaySimTest, ACacheBustKeepsASecondRunFromHittingTheFirstRunsPrefixes) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, WriteMultiTurnTrace(/*sessions=*/true));
  s.backend = "openai-chat";
  s.cache_bust = "first_turn_prefix";
  for (int run = 0; run < 2; ++run) {
    const Rates rates = RunReplay(s);
    // A session shares its history with itself only: the marker changes nothing within.
    EXPECT_NEAR(rates.infinite, kInfiniteFraction, 1e-6) << "run " << run;
    EXPECT_NEAR(rates.server, rates.infinite, 0.01) << "run " << run;
    EXPECT_TRUE(rates.valid) << rates.validity;
  }
  s.cache_bust = "none";
  RunReplay(s);  // seeds the cache with this seed's unmarked prompts
  const Rates again = RunReplay(s);
  EXPECT_GT(again.server, again.infinite + 0.2);
  EXPECT_FALSE(again.valid);
}

// AIPerf dag_jsonl (src/trace/testdata): the recorded messages are sent as they are,
// in two closed-loop lanes with the spawns and the fork; the sim's token ids give each
// turn's length and block ids, so the hit rates still agree.
TEST(TraceReplaySimTest, ADagTraceReplaysItsMessagesOnTheChatEndpoint) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, SERVEBENCH_SOURCE_DIR "/src/trace/testdata/agent.dag.jsonl");
  s.dataset_name = "dag_jsonl";
  s.trace_block_tokens = 0;
  s.backend = "openai-chat";
  s.max_concurrency = 2;
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, 9);
  for (const metrics::RequestRecord& rec : r->records) {
    EXPECT_EQ(rec.usage_prompt_tokens, rec.client_prompt_tokens);
  }
  const boost::json::object& pc = r->result.at("servebench").at("prefix_cache").as_object();
  const double expected = pc.at("expected").at("token_fraction_infinite").to_number<double>();
  EXPECT_GT(expected, 0.1);  // later turns resend the earlier turns' messages
  EXPECT_NEAR(pc.at("server").at("hit_rate").to_number<double>(), expected, 0.01);
}

// vLLM multi_turn: max_tokens is the recorded reply's length through the server's
// tokenizer ("Host DRAM." is 3 sim tokens: "Host", " DRAM", ".").
TEST(TraceReplaySimTest, AMultiTurnTraceSendsTheRecordedReplyLengthAsMaxTokens) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, SERVEBENCH_SOURCE_DIR "/src/trace/testdata/chats.multi_turn.json");
  s.dataset_name = "multi_turn";
  s.trace_block_tokens = 0;
  s.backend = "openai-chat";
  s.max_concurrency = 2;
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 3);
  std::vector<int64_t> outputs;
  for (const metrics::RequestRecord& rec : r->records) outputs.push_back(rec.max_tokens);
  std::sort(outputs.begin(), outputs.end());
  EXPECT_EQ(outputs.front(), 3);
}

// --assistant-turns live (AIPerf dag_jsonl's default): the second turn of a
// deltas_without_responses conversation carries the sim's actual reply to the first.
// The sim's prompt count of that turn must equal its /tokenize of [user 0, the reply it
// streamed, user 1], more than the pre-canned history (no reply) holds; no expected hit
// fraction is claimed.
TEST(TraceReplaySimTest, LiveAssistantTurnsCarryTheServersRepliesInTheHistory) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  const std::string path = servebench::testing::FreshTestDir("replay") + "/live.dag.jsonl";
  std::ofstream(path)
      << R"({"session_id": "c", "turns": [)"
         R"({"messages": [{"role": "user", "content": "What does a prefix cache store?"}], "max_tokens": 8},)"
         R"({"messages": [{"role": "user", "content": "Why are the blocks hashed in a chain?"}], "max_tokens": 8}]})"
      << "\n";
  BenchSettings s = Replay(sim, path);
  s.dataset_name = "dag_jsonl";
  s.trace_block_tokens = 0;
  s.backend = "openai-chat";
  s.max_concurrency = 1;
  s.assistant_turns = "live";
  s.keep_generated_text = true;
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 2);
  const metrics::RequestRecord* first = nullptr;
  const metrics::RequestRecord* second = nullptr;
  for (const metrics::RequestRecord& rec : r->records) {
    if (rec.index == 0) first = &rec;
    if (rec.index == 1) second = &rec;
  }
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  ASSERT_FALSE(first->generated_text.empty());
  auto url = net::ParseUrl(sim.base_url());
  ASSERT_TRUE(url.ok());
  std::string note;
  const ChatTokenizer tokenize = ProbeChatTokenizer(*url, s.model, s.tls, &note);
  ASSERT_TRUE(tokenize) << note;
  boost::json::array live{
      boost::json::object{{"role", "user"}, {"content", "What does a prefix cache store?"}},
      boost::json::object{{"role", "assistant"}, {"content", first->generated_text}},
      boost::json::object{{"role", "user"}, {"content", "Why are the blocks hashed in a chain?"}}};
  const auto counted = tokenize(boost::json::serialize(live));
  ASSERT_TRUE(counted.has_value());
  EXPECT_EQ(second->usage_prompt_tokens, counted->count);
  // The pre-canned history (the two user messages) is the client's count, and shorter.
  EXPECT_GT(second->usage_prompt_tokens, second->client_prompt_tokens);

  const boost::json::object& trace = r->result.at("servebench").at("trace").as_object();
  EXPECT_EQ(trace.at("assistant_turns").as_string(), "live");
  EXPECT_EQ(trace.at("live_replies").as_int64(), 1);
  EXPECT_EQ(trace.at("live_replies_missing").as_int64(), 0);
  const boost::json::object& pc = r->result.at("servebench").at("prefix_cache").as_object();
  EXPECT_TRUE(pc.at("expected").as_object().contains("not_applicable"));
  EXPECT_TRUE(pc.at("agree").is_null());
  EXPECT_TRUE(r->summary.validity.valid()) << boost::json::serialize(r->result);
}

// Live replies are built for text traces in lanes: a hash-id trace is refused by name
// before anything is sent.
TEST(TraceReplaySimTest, LiveAssistantTurnsAreRefusedForAHashIdTrace) {
  BenchSettings s;
  s.base_url = "http://127.0.0.1:1";  // nothing listens: the refusal comes first
  s.model = "m";
  s.dataset_name = "mooncake_trace";
  s.dataset_path = WriteMultiTurnTrace(/*sessions=*/true);
  s.trace_block_tokens = 64;
  s.backend = "openai-chat";
  s.max_concurrency = 2;
  s.assistant_turns = "live";
  auto r = RunBench(s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("live replies are built for the text traces"),
            std::string::npos)
      << r.status().ToString();
}

// A text trace on /v1/completions is refused naming the endpoint, before any
// connection is made.
TEST(TraceReplaySimTest, ATextTraceIsRefusedOnTheCompletionsEndpoint) {
  BenchSettings s;
  s.base_url = "http://127.0.0.1:1";  // nothing listens: the refusal comes first
  s.model = "m";
  s.dataset_name = "multi_turn";
  s.dataset_path = SERVEBENCH_SOURCE_DIR "/src/trace/testdata/chats.multi_turn.json";
  auto r = RunBench(s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--dataset-name multi_turn on /v1/completions: its turns "
                                      "are chat messages"),
            std::string::npos)
      << r.status().message();
}

// 5 Weka trajectories (64-token blocks): 3 root turns with a growing history, and a
// subagent of 2 turns spawned by root turn 0 and joined by root turn 1.
std::string WriteWekaTrace() {
  const std::string path = servebench::testing::FreshTestDir("replay") + "/weka.jsonl";
  std::ofstream out(path);
  for (int t = 0; t < 5; ++t) {
    auto root = [](int k, double at, double api) {
      boost::json::array ids;
      for (int b = 0; b < 2 * (k + 1); ++b) ids.push_back(b);
      return boost::json::object{{"type", "n"}, {"t", at},         {"in", 128 * (k + 1) + 20},
                                 {"out", 4},    {"hash_ids", ids}, {"api_time", api}};
    };
    boost::json::array sub_requests{
        boost::json::object{{"type", "n"},
                            {"t", 1.5},
                            {"in", 128},
                            {"out", 4},
                            {"hash_ids", boost::json::array{500, 501}},
                            {"api_time", 0.5}},
        boost::json::object{{"type", "n"},
                            {"t", 2.5},
                            {"in", 256},
                            {"out", 4},
                            {"hash_ids", boost::json::array{500, 501, 502, 503}},
                            {"api_time", 0.5}}};
    boost::json::array requests{root(0, 0.0, 1.0),
                                boost::json::object{{"type", "subagent"},
                                                    {"agent_id", "a1"},
                                                    {"t", 1.5},
                                                    {"requests", std::move(sub_requests)}},
                                root(1, 4.0, 1.0), root(2, 6.0, 1.0)};
    out << boost::json::serialize(boost::json::object{{"id", "traj" + std::to_string(t)},
                                                      {"block_size", 64},
                                                      {"requests", std::move(requests)}})
        << "\n";
  }
  return path;
}

TEST(TraceReplaySimTest, ClosedLoopLanesKeepAtMostTheirNumberOfTreesLiveAndTheTurnOrder) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, WriteWekaTrace());
  s.dataset_name = "weka_trace";
  s.max_concurrency = 2;  // lanes: live trees
  s.trace_speedup = 100;  // recorded delays of 0.5-2 s become 5-20 ms
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 25);
  const boost::json::object& sb = r->result.at("servebench").as_object();
  EXPECT_EQ(sb.at("trace").at("schedule").as_string(), "lanes");
  EXPECT_EQ(sb.at("trace").at("max_live_trees").to_number<int64_t>(), 2);
  // Jobs of trajectory t: 5t + (root 0, 1, 2; subagent 3, 4).
  std::vector<const metrics::RequestRecord*> by_job(25);
  for (const metrics::RequestRecord& rec : r->records) by_job[rec.index] = &rec;
  auto sent = [&](int job) { return by_job[job]->t_sent_ns; };
  auto done = [&](int job) { return by_job[job]->t_done_ns; };
  int64_t max_live = 0;
  for (int t = 0; t < 5; ++t) {
    const int j = 5 * t;
    EXPECT_GE(sent(j + 1), done(j + 4)) << "root turn 1 waits for the subagent it joins";
    EXPECT_GE(sent(j + 3), done(j + 0) + 5'000'000) << "the subagent starts 0.5 s / 100 late";
    EXPECT_GE(sent(j + 2), done(j + 1) + 10'000'000) << "end-to-start delay 1 s / 100";
    EXPECT_GE(sent(j + 4), done(j + 3));
    // Trees live at the start of this one: those that began before it and end after.
    int64_t live = 0;
    for (int u = 0; u < 5; ++u) {
      if (sent(5 * u) <= sent(j) && std::max({done(5 * u + 2), done(5 * u + 4)}) > sent(j)) ++live;
    }
    max_live = std::max(max_live, live);
  }
  EXPECT_LE(max_live, 2);
  const boost::json::object& pc = sb.at("prefix_cache").as_object();
  EXPECT_NEAR(pc.at("server").at("hit_rate").to_number<double>(),
              pc.at("expected").at("token_fraction_infinite").to_number<double>(), 0.01);
}

// Start positions and warm-up: 2 lanes start their first trajectory at root turn 1
// (the window [⌈0.25·3⌉, min(⌊0.75·3⌋, 1)]), so root turn 0 is the primer, root turn 1
// the one warm-up request per lane, and the subagent (spawned by turn 0) history.
// Measured: the 2 lanes' root turn 2, then 3 whole trajectories of 5 turns.
// Weka trajectories on the chat endpoint in lanes, cache-busted as InferenceX's
// scenario runs them, with their warm-ups: still within a point. (A subagent turn whose
// ids cover all of it, in = M·B, ends in the template's tail rather than its last
// block's words: the one place the chat layout differs from the token-id one.)
TEST(TraceReplaySimTest, WekaLanesOnTheChatEndpointBuildThePrefixesTheyShare) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, WriteWekaTrace());
  s.dataset_name = "weka_trace";
  s.backend = "openai-chat";
  s.cache_bust = "first_turn_prefix";
  s.max_concurrency = 2;
  s.trace_speedup = 100;
  s.trajectory_start_max_ratio = 0.5;
  s.warmup_requests_per_lane = 1;
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const boost::json::object& pc = r->result.at("servebench").at("prefix_cache").as_object();
  const double expected = pc.at("expected").at("token_fraction_infinite").to_number<double>();
  EXPECT_GT(expected, 0.2);
  EXPECT_NEAR(pc.at("server").at("hit_rate").to_number<double>(), expected, 0.01);
  EXPECT_TRUE(r->summary.validity.valid())
      << boost::json::serialize(r->result.at("servebench").at("validity"));
}

TEST(TraceReplaySimTest, LaneWarmUpsSeedTheCacheButAreNotMeasured) {
  SimProcess sim({"--enable-prefix-caching", "--block-size", "16", "--time-scale", "0.01"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Replay(sim, WriteWekaTrace());
  s.dataset_name = "weka_trace";
  s.max_concurrency = 2;
  s.trace_speedup = 100;
  s.trajectory_start_min_ratio = 0.25;
  s.trajectory_start_max_ratio = 0.75;
  s.warmup_requests_per_lane = 1;
  s.trace_idle_gap_cap_s = 0.005;  // the 10-20 ms delays go after 5 ms of idle
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, 2 + 15);
  int64_t warm = 0, warm_one_token = 0;
  for (const metrics::RequestRecord& rec : r->records) {
    if (!rec.warmup) continue;
    ++warm;
    if (rec.max_tokens == 1) ++warm_one_token;
  }
  EXPECT_EQ(warm, 4);
  EXPECT_EQ(warm_one_token, 4);
  const boost::json::object& sb = r->result.at("servebench").as_object();
  const boost::json::object& t = sb.at("trace").as_object();
  EXPECT_EQ(boost::json::serialize(t.at("start_turns")), "[1,1]");
  EXPECT_EQ(t.at("warmup_requests").to_number<int64_t>(), 4);
  EXPECT_EQ(t.at("warmup_primers").to_number<int64_t>(), 2);
  EXPECT_EQ(t.at("skipped_turns").to_number<int64_t>(), 4);  // 2 subagents of 2 turns
  EXPECT_GT(t.at("tree_idle_cap_shifts").to_number<int64_t>(), 0);
  const boost::json::object& pc = sb.at("prefix_cache").as_object();
  EXPECT_EQ(pc.at("expected").at("requests").to_number<int64_t>(), 17);
  EXPECT_EQ(pc.at("expected").at("seeding_requests").to_number<int64_t>(), 4);
  EXPECT_NEAR(pc.at("server").at("hit_rate").to_number<double>(),
              pc.at("expected").at("token_fraction_infinite").to_number<double>(), 0.01);
  EXPECT_TRUE(r->summary.validity.valid())
      << boost::json::serialize(r->result.at("servebench").at("validity"));
}

}  // namespace
}  // namespace servebench::client
