// Reasoning-aware metrics and the tool-calling workload against the real
// `servebench sim` over loopback (docs/metrics.md "Channels", docs/bench.md
// "Tool-calling workload"): a reasoning model's TTFO trails its TTFT by the decode
// time of its reasoning tokens, per-channel token counts are exact, and tool calls
// are counted by the JSON validity of their arguments, valid on a natural stop and
// invalid when max_tokens cuts them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdio>

#include "client/client.h"
#include "common/exit_codes.h"
#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "metrics/channels.h"
#include "sim/testing/sim_process.h"
#include "sim/testing/started_sim.h"

namespace servebench::client {
namespace {

using metrics::Channel;
using metrics::ChannelsOf;
using metrics::RequestChannels;
using sim::testing::SimProcess;
using sim::testing::StartSim;

// Chat requests, one at a time so every decode step of a request costs the same.
BenchSettings ChatSettings(const SimProcess& sim) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.backend = "openai-chat";
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.num_prompts = 4;
  s.max_concurrency = 1;
  s.random_input_len = 64;
  s.random_output_len = 32;
  s.ignore_eos = true;
  s.request_timeout_s = 20;
  s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  s.server_lag_limit_ms = 1e9;
  return s;
}

const metrics::ChannelSummary& Of(const metrics::RunSummary& s, Channel c) {
  return s.channels[static_cast<size_t>(c)];
}

TEST(ChannelsSimTest, TtfoTrailsTtftByTheReasoningTokensDecodeTime) {
  auto sim = StartSim({"--reasoning-tokens", "8", "--time-scale", "0.05", "--seed", "3"});
  ASSERT_NE(sim, nullptr);
  auto r = RunBench(ChatSettings(*sim));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 4) << (s.sample_errors.empty() ? "" : s.sample_errors[0]);
  // Exact per channel: 8 reasoning tokens, then 24 of content, one token per event.
  EXPECT_EQ(Of(s, Channel::kReasoning).requests, 4);
  EXPECT_EQ(Of(s, Channel::kReasoning).total_tokens, 4 * 8);
  EXPECT_EQ(Of(s, Channel::kContent).total_tokens, 4 * 24);
  EXPECT_EQ(Of(s, Channel::kToolCall).requests, 0);
  EXPECT_EQ(s.total_output_tokens, 4 * 32);  // reasoning tokens are output tokens
  EXPECT_EQ(s.requests_without_output, 0);
  ASSERT_EQ(s.ttfo.count, 4u);
  for (const metrics::RequestRecord& rec : r->records) {
    if (rec.warmup) continue;
    RequestChannels ch = ChannelsOf(rec);
    EXPECT_EQ(ch[Channel::kReasoning].t_first_ns, rec.t_first_token_ns);
    EXPECT_EQ(ch[Channel::kReasoning].tokens, 8);
    EXPECT_EQ(ch[Channel::kContent].tokens, 24);
    // Per request: TTFO - TTFT is the 8 decode steps of the reasoning tokens, and
    // every decode step of the request takes TPOT (simulated time, batch of one).
    double gap_ms = static_cast<double>(ch.t_first_output_ns - rec.t_first_token_ns) / 1e6;
    double tpot_ms =
        static_cast<double>(rec.t_last_token_ns - rec.t_first_token_ns) / 1e6 / (32 - 1);
    EXPECT_NEAR(gap_ms, 8 * tpot_ms, 0.05 * 8 * tpot_ms);
  }
  EXPECT_NEAR(s.ttfo.median - s.ttft.median, 8 * s.tpot.median, 0.05 * 8 * s.tpot.median);
  EXPECT_DOUBLE_EQ(Of(s, Channel::kContent).time_to_first.median, s.ttfo.median);
  EXPECT_DOUBLE_EQ(Of(s, Channel::kReasoning).time_to_first.median, s.ttft.median);
  EXPECT_TRUE(s.validity.valid());
}

TEST(ChannelsSimTest, WithoutReasoningTtfoIsTtftAndCompletionsHaveNoReasoning) {
  auto sim = StartSim({"--reasoning-tokens", "8", "--time-scale", "0.05", "--seed", "4"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = ChatSettings(*sim);
  b.backend = "openai";  // /v1/completions: text only, as vLLM's reasoning parser
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 4);
  EXPECT_EQ(Of(s, Channel::kReasoning).requests, 0);
  EXPECT_EQ(Of(s, Channel::kContent).total_tokens, 4 * 32);
  EXPECT_DOUBLE_EQ(s.ttfo.median, s.ttft.median);
}

TEST(ChannelsSimTest, RequestThatSpendsMaxTokensThinkingHasNoTtfo) {
  auto sim = StartSim({"--reasoning-tokens", "64", "--time-scale", "0.05", "--seed", "5"});
  ASSERT_NE(sim, nullptr);
  auto r = RunBench(ChatSettings(*sim));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 4);
  EXPECT_EQ(s.requests_without_output, 4);
  EXPECT_TRUE(s.ttfo.empty());
  EXPECT_EQ(Of(s, Channel::kReasoning).total_tokens, 4 * 32);
  EXPECT_EQ(s.ttft.count, 4u);
}

TEST(ChannelsSimTest, ToolCallsThatStopNaturallyAreValidJson) {
  // Natural stops at 4 .. 12 tokens (min_tokens 4): 2 reasoning, then >= 2 of the call.
  auto sim = StartSim({"--reasoning-tokens", "2", "--eos-after-mean-tokens", "6", "--time-scale",
                       "0.05", "--seed", "6"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = ChatSettings(*sim);
  b.tool_call_workload = true;
  b.ignore_eos = false;
  b.random_output_len = 200;
  b.num_prompts = 6;
  b.max_concurrency = 3;
  b.extra_body_json = R"({"min_tokens": 4})";
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 6) << (s.sample_errors.empty() ? "" : s.sample_errors[0]);
  EXPECT_EQ(s.tool_calls.valid, 6);
  EXPECT_EQ(s.tool_calls.invalid, 0);
  EXPECT_EQ(s.tool_calls.requests_without_tool_call, 0);
  EXPECT_EQ(Of(s, Channel::kToolCall).requests, 6);
  EXPECT_EQ(Of(s, Channel::kReasoning).total_tokens, 6 * 2);
  EXPECT_EQ(Of(s, Channel::kContent).requests, 0);
  // The tool call is the visible output: TTFO is its first event.
  EXPECT_DOUBLE_EQ(Of(s, Channel::kToolCall).time_to_first.median, s.ttfo.median);
  EXPECT_EQ(Of(s, Channel::kReasoning).total_tokens + Of(s, Channel::kToolCall).total_tokens,
            s.total_output_tokens);
  EXPECT_EQ(r->result.at("servebench").at("run").at("tool_choice").as_string(), "required");
}

TEST(ChannelsSimTest, ToolCallsCutByMaxTokensAreInvalidJson) {
  auto sim = StartSim({"--time-scale", "0.05", "--seed", "7"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = ChatSettings(*sim);
  b.tool_call_workload = true;
  b.random_output_len = 16;  // ignore_eos: every call ends at max_tokens, open
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 4);
  EXPECT_EQ(s.tool_calls.valid, 0);
  EXPECT_EQ(s.tool_calls.invalid, 4);
  EXPECT_EQ(Of(s, Channel::kToolCall).total_tokens, 4 * 16);
}

TEST(ChannelsSimTest, ToolChoiceAutoGetsContentAndNoToolCall) {
  auto sim = StartSim({"--time-scale", "0.05", "--seed", "8"});
  ASSERT_NE(sim, nullptr);
  BenchSettings b = ChatSettings(*sim);
  b.tool_call_workload = true;
  b.tool_choice = "auto";
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.tool_calls.requests_without_tool_call, 4);
  EXPECT_EQ(r->summary.tool_calls.valid + r->summary.tool_calls.invalid, 0);
}

// The flags end to end: `servebench bench --tool-call-workload` against
// `servebench sim --reasoning-tokens`, the counts in the saved result and the
// per-request JSONL.
TEST(ChannelsSimTest, BenchCommandWritesChannelsAndToolCalls) {
  auto sim = StartSim({"--reasoning-tokens", "3", "--time-scale", "0.05", "--seed", "9"});
  ASSERT_NE(sim, nullptr);
  std::string out = ::testing::TempDir() + "/channels.json";
  std::string jsonl = ::testing::TempDir() + "/channels.jsonl";
  std::remove(out.c_str());
  std::remove(jsonl.c_str());
  servebench::testing::ProcessResult p =
      servebench::testing::RunProcess({SERVEBENCH_BIN,
                                       "bench",
                                       "--base-url",
                                       sim->base_url(),
                                       "--backend",
                                       "openai-chat",
                                       "--model",
                                       "meta-llama/Llama-3.1-8B-Instruct",
                                       "--num-prompts",
                                       "3",
                                       "--max-concurrency",
                                       "1",
                                       "--random-input-len",
                                       "32",
                                       "--random-output-len",
                                       "10",
                                       "--ignore-eos",
                                       "--tool-call-workload",
                                       "--issue-delay-limit-ms",
                                       "100000",
                                       "--server-lag-limit-ms",
                                       "100000",
                                       "--no-progress",
                                       "--save-result",
                                       "--result-filename",
                                       out,
                                       "--requests-jsonl",
                                       jsonl},
                                      60);
  ASSERT_FALSE(p.timed_out) << p.err;
  ASSERT_EQ(p.exit_code, kExitOk) << p.out << p.err;
  EXPECT_NE(p.out.find("Tool calls (valid / invalid JSON):"), std::string::npos) << p.out;
  boost::json::value v = boost::json::parse(servebench::testing::ReadFileOrEmpty(out));
  const boost::json::object& sb = v.at("servebench").as_object();
  EXPECT_EQ(sb.at("tool_calls").at("invalid").as_int64(), 3);  // cut at max_tokens
  EXPECT_EQ(sb.at("channels").at("reasoning").at("total_tokens").as_int64(), 3 * 3);
  EXPECT_EQ(sb.at("channels").at("tool_call").at("total_tokens").as_int64(), 3 * 7);
  EXPECT_EQ(sb.at("stats").at("ttfo_ms").at("count").as_int64(), 3);
  std::string lines = servebench::testing::ReadFileOrEmpty(jsonl);
  ASSERT_FALSE(lines.empty());
  boost::json::value first = boost::json::parse(lines.substr(0, lines.find('\n')));
  EXPECT_EQ(first.at("channels").at("reasoning").at("tokens").as_int64(), 3);
  EXPECT_EQ(first.at("tool_calls").at("invalid").as_int64(), 1);
  EXPECT_GT(first.at("t_first_output_ns").as_int64(), first.at("t_first_token_ns").as_int64());
}

}  // namespace
}  // namespace servebench::client
