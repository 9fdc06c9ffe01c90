// StreamDecoder's channels: which text an event carried (reasoning, content, tool
// call) and the JSON validity of each returned tool call's accumulated arguments.
#include <gtest/gtest.h>

#include "client/openai_stream.h"

namespace servebench::client {
namespace {

using metrics::kChannelContent;
using metrics::kChannelReasoning;
using metrics::kChannelToolCall;
using metrics::RequestRecord;

TEST(StreamDecoderChannelsTest, EachEventRecordsTheChannelsOfItsText) {
  RequestRecord r;
  StreamDecoder d(&r, /*keep_text=*/false);
  ASSERT_TRUE(d.OnData(R"({"choices":[{"delta":{"role":"assistant","content":""}}]})", 1));
  ASSERT_TRUE(d.OnData(R"({"choices":[{"delta":{"reasoning_content":"Let"}}]})", 2));
  ASSERT_TRUE(d.OnData(R"({"choices":[{"delta":{"reasoning":" me"}}]})", 3));
  ASSERT_TRUE(d.OnData(R"({"choices":[{"delta":{"reasoning_content":".","content":"Hi"}}]})", 4));
  ASSERT_TRUE(d.OnData(R"({"choices":[{"text":"!","finish_reason":"stop"}]})", 5));
  d.OnEnd();
  ASSERT_EQ(r.events.size(), 5u);
  EXPECT_EQ(r.events[0].channels, 0);
  EXPECT_EQ(r.events[1].channels, kChannelReasoning);
  EXPECT_EQ(r.events[2].channels, kChannelReasoning);
  EXPECT_EQ(r.events[3].channels, kChannelReasoning | kChannelContent);
  EXPECT_EQ(r.events[4].channels, kChannelContent);
  EXPECT_EQ(r.tool_calls_valid + r.tool_calls_invalid, 0);
}

TEST(StreamDecoderChannelsTest, ToolCallArgumentsAreJoinedPerIndexAndJudgedAtTheEnd) {
  RequestRecord r;
  StreamDecoder d(&r, false);
  ASSERT_TRUE(d.OnData(R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c0",)"
                       R"("type":"function","function":{"name":"lookup","arguments":""}}]}}]})",
                       1));
  ASSERT_TRUE(d.OnData(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\": \"Pa"}}]}}]})",
      2));
  ASSERT_TRUE(
      d.OnData(R"({"choices":[{"delta":{"tool_calls":[{"index":1,"id":"c1",)"
               R"("type":"function","function":{"name":"lookup","arguments":"{\"q\""}}]}}]})",
               3));
  ASSERT_TRUE(d.OnData(
      R"({"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ris\"}"}}]}}]})",
      4));
  EXPECT_EQ(r.tool_calls_valid, 0);  // judged only once the stream ended
  ASSERT_TRUE(d.OnData(R"({"choices":[{"delta":{},"finish_reason":"length"}]})", 5));
  d.OnEnd();
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.tool_calls_valid, 1);    // {"q": "Paris"}
  EXPECT_EQ(r.tool_calls_invalid, 1);  // {"q"  (cut)
  EXPECT_EQ(r.events[0].channels, kChannelToolCall);
  EXPECT_EQ(r.events[0].k, 1);  // the name alone is tool-call text
}

TEST(StreamDecoderChannelsTest, ArgumentsThatAreJsonButNotAnObjectAreInvalid) {
  RequestRecord r;
  StreamDecoder d(&r, false);
  ASSERT_TRUE(
      d.OnData(R"({"choices":[{"delta":{"tool_calls":[{"index":0,)"
               R"("function":{"name":"f","arguments":"[1, 2]"}}]},"finish_reason":"stop"}]})",
               1));
  d.OnEnd();
  EXPECT_EQ(r.tool_calls_invalid, 1);
}

}  // namespace
}  // namespace servebench::client
