// The worked examples of docs/metrics.md "Channels": a stream that thinks before it
// answers (TTFT vs TTFO), one that is cut while thinking, a mixed delta, and how a
// run summarises channels and tool calls.
#include "metrics/channels.h"

#include <gtest/gtest.h>

#include "metrics/result_writer.h"
#include "metrics/run_summary.h"
#include "metrics/stat_selector.h"

namespace servebench::metrics {
namespace {

int64_t Ms(double ms) { return static_cast<int64_t>(ms * 1e6 + 0.5); }

struct Ev {
  double t_ms;
  int k;
  uint8_t channels;
};

// A successful request sent at 1.0 ms with these events and usage.
RequestRecord Request(const std::vector<Ev>& events, int64_t usage_n) {
  RequestRecord r;
  r.t_scheduled_ns = Ms(1.0);
  r.t_sent_ns = Ms(1.0);
  for (const Ev& e : events) {
    r.events.push_back({Ms(e.t_ms), e.k, e.channels});
    if (e.k > 0) {
      if (r.t_first_token_ns < 0) r.t_first_token_ns = Ms(e.t_ms);
      r.t_last_token_ns = Ms(e.t_ms);
    }
  }
  r.t_done_ns = r.events.back().t_ns;
  r.usage_completion_tokens = usage_n;
  r.k_source = KSource::kContinuousUsage;
  r.saw_continuous_usage = true;
  r.http_status = 200;
  return r;
}

// Example R: role-only at 50 ms, three reasoning tokens, then three content tokens.
RequestRecord ExampleR() {
  return Request({{50.0, 0, 0},
                  {101.0, 1, kChannelReasoning},
                  {121.0, 1, kChannelReasoning},
                  {141.0, 1, kChannelReasoning},
                  {161.0, 1, kChannelContent},
                  {181.0, 2, kChannelContent},
                  {181.5, 0, 0}},
                 6);
}

SummaryInputs Inputs(int64_t requested) {
  SummaryInputs in;
  in.requested_prompts = requested;
  in.client_issue_delay_limit_ms = 1e9;
  return in;
}

TEST(ChannelsTest, ReasoningFirstMakesTtfoLaterThanTtftByTheReasoningDecodeTime) {
  RequestChannels ch = ChannelsOf(ExampleR());
  EXPECT_EQ(ch[Channel::kReasoning].t_first_ns, Ms(101.0));
  EXPECT_EQ(ch[Channel::kReasoning].tokens, 3);
  EXPECT_EQ(ch[Channel::kContent].t_first_ns, Ms(161.0));
  EXPECT_EQ(ch[Channel::kContent].tokens, 3);
  EXPECT_EQ(ch[Channel::kContent].events, 2);
  EXPECT_FALSE(ch[Channel::kToolCall].present());
  EXPECT_EQ(ch.t_first_output_ns, Ms(161.0));

  RunSummary s = ComputeRunSummary({ExampleR()}, Inputs(1));
  EXPECT_DOUBLE_EQ(s.ttft.median, 100.0);
  EXPECT_DOUBLE_EQ(s.ttfo.median, 160.0);  // 60 ms later: three 20 ms reasoning steps
  EXPECT_DOUBLE_EQ(s.tpot.median, 16.0);   // (180 - 100) / 5: reasoning tokens are output
  const ChannelSummary& reasoning = s.channels[static_cast<size_t>(Channel::kReasoning)];
  EXPECT_EQ(reasoning.requests, 1);
  EXPECT_EQ(reasoning.total_tokens, 3);
  EXPECT_DOUBLE_EQ(reasoning.time_to_first.median, 100.0);
  const ChannelSummary& content = s.channels[static_cast<size_t>(Channel::kContent)];
  EXPECT_DOUBLE_EQ(content.time_to_first.median, 160.0);
  EXPECT_DOUBLE_EQ(content.tokens.median, 3.0);
  EXPECT_EQ(s.requests_without_output, 0);
  EXPECT_EQ(s.tool_calls.requests_without_tool_call, 1);
}

TEST(ChannelsTest, WithoutReasoningTtfoIsTtft) {
  RequestRecord r = Request({{101.0, 1, kChannelContent}, {121.0, 1, kChannelContent}}, 2);
  RunSummary s = ComputeRunSummary({r}, Inputs(1));
  EXPECT_DOUBLE_EQ(s.ttfo.median, s.ttft.median);
  EXPECT_EQ(s.channels[static_cast<size_t>(Channel::kReasoning)].requests, 0);
  EXPECT_TRUE(s.channels[static_cast<size_t>(Channel::kReasoning)].time_to_first.empty());
}

TEST(ChannelsTest, RequestCutWhileThinkingHasNoTtfoAndIsCounted) {
  RequestRecord thinking =
      Request({{101.0, 1, kChannelReasoning}, {121.0, 1, kChannelReasoning}}, 2);
  RunSummary s = ComputeRunSummary({thinking, ExampleR()}, Inputs(2));
  EXPECT_EQ(s.ttft.count, 2u);
  EXPECT_EQ(s.ttfo.count, 1u);  // only the request that answered
  EXPECT_EQ(s.requests_without_output, 1);
  EXPECT_EQ(s.channels[static_cast<size_t>(Channel::kReasoning)].total_tokens, 5);
}

TEST(ChannelsTest, MixedDeltaStartsBothChannelsAndGivesItsTokensToTheFirst) {
  // The delta that ends thinking holds reasoning and content text, k = 2.
  RequestRecord r = Request({{101.0, 1, kChannelReasoning},
                             {121.0, 2, kChannelReasoning | kChannelContent},
                             {141.0, 1, kChannelContent}},
                            4);
  RequestChannels ch = ChannelsOf(r);
  EXPECT_EQ(ch[Channel::kReasoning].tokens, 3);
  EXPECT_EQ(ch[Channel::kContent].tokens, 1);
  EXPECT_EQ(ch[Channel::kContent].t_first_ns, Ms(121.0));
  EXPECT_EQ(ch.t_first_output_ns, Ms(121.0));
}

TEST(ChannelsTest, ToolCallIsVisibleOutputAndItsValidityIsCounted) {
  RequestRecord call = Request(
      {{101.0, 1, kChannelReasoning}, {121.0, 1, kChannelToolCall}, {141.0, 1, kChannelToolCall}},
      3);
  call.tool_calls_valid = 1;
  RequestRecord cut = call;
  cut.tool_calls_valid = 0;
  cut.tool_calls_invalid = 1;
  RunSummary s = ComputeRunSummary({call, cut, ExampleR()}, Inputs(3));
  EXPECT_EQ(s.tool_calls.valid, 1);
  EXPECT_EQ(s.tool_calls.invalid, 1);
  EXPECT_EQ(s.tool_calls.requests_without_tool_call, 1);
  EXPECT_EQ(s.channels[static_cast<size_t>(Channel::kToolCall)].requests, 2);
  EXPECT_EQ(s.channels[static_cast<size_t>(Channel::kToolCall)].total_tokens, 4);
  // TTFO of the tool calls is their first tool-call event: 120 ms.
  EXPECT_DOUBLE_EQ(s.ttfo.min, 120.0);
}

TEST(ChannelsTest, UnclassifiedTokenEventsCountAsContent) {
  RequestRecord r = Request({{101.0, 1, 0}}, 1);
  RequestChannels ch = ChannelsOf(r);
  EXPECT_EQ(ch[Channel::kContent].tokens, 1);
  EXPECT_EQ(ch.t_first_output_ns, Ms(101.0));
}

TEST(ChannelsTest, ResultAndPerRequestJsonCarryTheChannels) {
  RunSummary s = ComputeRunSummary({ExampleR()}, Inputs(1));
  boost::json::object sb = BuildServebenchObject(s);
  EXPECT_DOUBLE_EQ(sb.at("stats").at("ttfo_ms").at("median").as_double(), 160.0);
  const boost::json::object& reasoning = sb.at("channels").at("reasoning").as_object();
  EXPECT_EQ(reasoning.at("total_tokens").as_int64(), 3);
  EXPECT_DOUBLE_EQ(reasoning.at("time_to_first_ms").at("median").as_double(), 100.0);
  EXPECT_EQ(sb.at("tool_calls").at("requests_without_tool_call").as_int64(), 1);
  EXPECT_EQ(sb.at("requests_without_output").as_int64(), 0);

  boost::json::object line = RequestRecordJson(ExampleR());
  EXPECT_EQ(line.at("t_first_output_ns").as_int64(), Ms(161.0));
  EXPECT_EQ(line.at("channels").at("reasoning").at("tokens").as_int64(), 3);
  EXPECT_EQ(line.at("channels").at("tool_call").at("t_first_ns").as_int64(), -1);
}

TEST(ChannelsTest, HeadlineTakesTtfoFromTheResult) {
  RunSummary s = ComputeRunSummary({ExampleR()}, Inputs(1));
  ResultHeader h;
  h.num_prompts = 1;
  boost::json::object result = BuildResultJson(s, h, {ExampleR()});
  Headline headline = HeadlineFromResult(result, GpuTopology{});
  ASSERT_TRUE(headline.median_ttfo_ms.has_value());
  EXPECT_DOUBLE_EQ(*headline.median_ttfo_ms, 160.0);
  EXPECT_DOUBLE_EQ(*headline.p99_ttfo_ms, 160.0);
  EXPECT_DOUBLE_EQ(*headline.median_ttft_ms, 100.0);
}

TEST(ChannelsTest, SearchSloCanNameTtfo) {
  RunSummary s = ComputeRunSummary({ExampleR()}, Inputs(1));
  auto sel = ParseStatSelector("ttfo_p99_ms");
  ASSERT_TRUE(sel.ok()) << sel.status().ToString();
  EXPECT_EQ(sel->metric, "ttfo");
  EXPECT_DOUBLE_EQ(*SelectStat(s, *sel), 160.0);
}

}  // namespace
}  // namespace servebench::metrics
