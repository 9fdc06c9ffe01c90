#include "client/openai_stream.h"

#include <gtest/gtest.h>

namespace servebench::client {
namespace {

using metrics::FailureKind;
using metrics::RequestRecord;

TEST(StreamDecoderTest, RoleOnlyAndUsageOnlyChunksCarryNoTokens) {
  RequestRecord r;
  StreamDecoder d(&r, /*keep_text=*/true);
  ASSERT_TRUE(d.OnData(R"({"choices":[{"delta":{"role":"assistant","content":""}}]})", 50));
  ASSERT_TRUE(d.OnData(R"({"choices":[{"delta":{"content":"Hi"}}]})", 101));
  ASSERT_TRUE(d.OnData(
      R"({"choices":[{"delta":{"reasoning_content":"hm"},"finish_reason":"length"}]})", 121));
  ASSERT_TRUE(d.OnData(R"({"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2}})", 130));
  ASSERT_TRUE(d.OnData("[DONE]", 131));
  d.OnEnd();
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.t_first_token_ns, 101);
  EXPECT_EQ(r.t_last_token_ns, 121);
  ASSERT_EQ(r.events.size(), 4u);  // [DONE] is not a data event
  EXPECT_EQ(r.events[0].k, 0);
  EXPECT_EQ(r.events[3].k, 0);
  EXPECT_EQ(r.usage_completion_tokens, 2);
  EXPECT_EQ(r.usage_prompt_tokens, 7);
  EXPECT_EQ(r.generated_text, "Hihm");
  EXPECT_EQ(r.finish_reason, "length");
}

TEST(StreamDecoderTest, ContinuousUsageGivesTokensPerEvent) {
  RequestRecord r;
  StreamDecoder d(&r, false);
  ASSERT_TRUE(d.OnData(
      R"({"choices":[{"text":"a"}],"usage":{"prompt_tokens":3,"completion_tokens":1}})", 1));
  ASSERT_TRUE(d.OnData(
      R"({"choices":[{"text":"bcd"}],"usage":{"prompt_tokens":3,"completion_tokens":4}})", 2));
  ASSERT_TRUE(d.OnData(
      R"({"choices":[{"text":"","finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":4}})",
      3));
  d.OnEnd();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.k_source, metrics::KSource::kContinuousUsage);
  EXPECT_EQ(r.events[0].k, 1);
  EXPECT_EQ(r.events[1].k, 3);
  EXPECT_EQ(r.events[2].k, 0);
}

TEST(StreamDecoderTest, ToolCallFragmentsCarryTokens) {
  RequestRecord r;
  StreamDecoder d(&r, true);
  ASSERT_TRUE(d.OnData(
      R"({"choices":[{"delta":{"tool_calls":[{"function":{"name":"f","arguments":"{\"x"}}]},"finish_reason":"tool_calls"}]})",
      5));
  d.OnEnd();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.generated_text, "f{\"x");
}

TEST(StreamDecoderTest, ErrorObjectMidStreamFailsTheRequest) {
  RequestRecord r;
  StreamDecoder d(&r, false);
  ASSERT_TRUE(d.OnData(R"({"choices":[{"text":"a"}]})", 1));
  EXPECT_FALSE(d.OnData(R"({"error":{"message":"overloaded","code":503}})", 2));
  EXPECT_EQ(r.failure, FailureKind::kStreamError);
  EXPECT_NE(r.error.find("overloaded"), std::string::npos);
}

TEST(StreamDecoderTest, MalformedJsonFailsTheRequest) {
  RequestRecord r;
  StreamDecoder d(&r, false);
  EXPECT_FALSE(d.OnData("{not json", 1));
  EXPECT_EQ(r.failure, FailureKind::kMalformed);
}

TEST(StreamDecoderTest, StreamWithoutEndOrTokensIsAFailure) {
  RequestRecord a;
  StreamDecoder da(&a, false);
  ASSERT_TRUE(da.OnData(R"({"choices":[{"text":"a"}]})", 1));
  da.OnEnd();
  EXPECT_EQ(a.failure, FailureKind::kRead);
  RequestRecord b;
  StreamDecoder db(&b, false);
  ASSERT_TRUE(db.OnData("[DONE]", 1));
  db.OnEnd();
  EXPECT_EQ(b.failure, FailureKind::kNoTokens);
}

TEST(StreamDecoderTest, PerRequestSpecStatsAreRead) {
  RequestRecord r;
  StreamDecoder d(&r, false);
  ASSERT_TRUE(d.OnData(R"({"choices":[{"text":"a","finish_reason":"length"}]})", 1));
  ASSERT_TRUE(d.OnData(
      R"({"choices":[],"usage":{"completion_tokens":1},"metrics":{"speculative_decoding":{"mean_acceptance_length":2.5,"num_spec_steps":4,"num_draft_tokens":12,"num_accepted_draft_tokens":6}}})",
      2));
  d.OnEnd();
  ASSERT_TRUE(r.spec.has_value());
  EXPECT_DOUBLE_EQ(r.spec->mean_acceptance_length, 2.5);
  EXPECT_EQ(r.spec->num_draft_tokens, 12);
}

}  // namespace
}  // namespace servebench::client
