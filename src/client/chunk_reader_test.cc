#include "client/chunk_reader.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace servebench::client {
namespace {

ChunkFacts Read(std::string_view data, std::string* text = nullptr) {
  ChunkFacts f;
  Status s = ReadChunk(data, &f, text);
  EXPECT_TRUE(s.ok()) << data << ": " << s.message();
  return f;
}

// The chunk the sim sends at --time-scale 0 with continuous usage (generation_stream.cc).
constexpr std::string_view kSimChunk =
    R"({"id":"cmpl-7","object":"text_completion","created":1700000000,"model":"m",)"
    R"("choices":[{"index":0,"text":"tok","logprobs":null,"finish_reason":null,)"
    R"("stop_reason":null}],"usage":{"prompt_tokens":64,"total_tokens":70,)"
    R"("completion_tokens":6},"servebench_sim_ns":123456789,)"
    R"("servebench_sim_arrival_ns":1000,"servebench_sim_time_scale":0,)"
    R"("servebench_send_ns":987654321})";

TEST(ChunkReaderTest, SimChunkYieldsEveryFieldTheDecoderRecords) {
  std::string text;
  ChunkFacts f = Read(kSimChunk, &text);
  EXPECT_NE(f.channels, 0);
  EXPECT_FALSE(f.server_error);
  EXPECT_FALSE(f.finish_reason.has_value());  // null is not a finish reason
  EXPECT_TRUE(f.has_usage);
  EXPECT_EQ(f.completion_tokens, 6);
  EXPECT_EQ(f.prompt_tokens, 64);
  EXPECT_EQ(f.sim_ns, 123456789);
  EXPECT_EQ(f.sim_arrival_ns, 1000);
  EXPECT_EQ(f.sim_time_scale, 0.0);
  EXPECT_EQ(f.send_ns, 987654321);
  EXPECT_EQ(text, "tok");
}

TEST(ChunkReaderTest, EmptyStringsAndNonStringsCarryNoTokens) {
  EXPECT_EQ(Read(R"({"choices":[{"delta":{"role":"assistant","content":""}}]})").channels, 0);
  EXPECT_EQ(Read(R"({"choices":[{"text":null,"delta":{"content":7}}]})").channels, 0);
  EXPECT_EQ(Read(R"({"choices":[],"usage":{"completion_tokens":2}})").channels, 0);
  // `text` counts only as a member of a choice, `content` only inside delta.
  EXPECT_EQ(Read(R"({"text":"x","choices":[{"content":"y","delta":{"text":"z"}}]})").channels, 0);
}

TEST(ChunkReaderTest, TextIsAppendedInDocumentedOrderPerChoice) {
  std::string text;
  ChunkFacts f =
      Read(R"({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"[x]","name":"f"}}],)"
           R"("reasoning":"R","content":"C","reasoning_content":"RC"},"text":"T"},)"
           R"({"text":"2"}]})",
           &text);
  EXPECT_NE(f.channels, 0);
  EXPECT_EQ(text, "TCRCRf[x]2");
}

TEST(ChunkReaderTest, EscapedAndLongStringsAreReadWhole) {
  // Escapes make the parser deliver a string in parts; a long one too.
  std::string long_text(5000, 'a');
  long_text += "\\n\\u00e9\\\"";
  std::string data =
      R"({"choices":[{"text":")" + long_text + R"(","finish_reason":"le\u006egth"}]})";
  std::string text;
  ChunkFacts f = Read(data, &text);
  EXPECT_EQ(text, std::string(5000, 'a') + "\n\xc3\xa9\"");
  EXPECT_EQ(f.finish_reason, "length");
}

TEST(ChunkReaderTest, NumbersOfEveryKindAreReadAsTheDomReaderDid) {
  ChunkFacts f =
      Read(R"({"usage":{"completion_tokens":3.0,"prompt_tokens":18446744073709551615},)"
           R"("servebench_sim_ns":1.5,"servebench_send_ns":-4,"servebench_sim_time_scale":2})");
  EXPECT_EQ(f.completion_tokens, 3);
  EXPECT_TRUE(f.prompt_tokens.has_value());  // a uint64, cast as before
  EXPECT_FALSE(f.sim_ns.has_value());        // the sim's stamps must be integers
  EXPECT_EQ(f.send_ns, -4);
  EXPECT_EQ(f.sim_time_scale, 2.0);
  // A double outside int64's range anywhere is clamped, never an undefined cast.
  ChunkFacts huge = Read(R"({"usage":{"completion_tokens":1e300},"x":-1e300})");
  EXPECT_EQ(huge.completion_tokens, std::numeric_limits<int64_t>::max());
}

TEST(ChunkReaderTest, SpecStatsAreReadFromTheirObject) {
  ChunkFacts f =
      Read(R"({"metrics":{"speculative_decoding":{"num_spec_steps":4,"num_draft_tokens":12,)"
           R"("num_accepted_draft_tokens":6,"mean_acceptance_length":2.5}},"num_spec_steps":9})");
  ASSERT_TRUE(f.spec.has_value());
  EXPECT_EQ(f.spec->num_spec_steps, 4);
  EXPECT_EQ(f.spec->num_draft_tokens, 12);
  EXPECT_EQ(f.spec->num_accepted_draft_tokens, 6);
  EXPECT_DOUBLE_EQ(f.spec->mean_acceptance_length, 2.5);
  EXPECT_FALSE(Read(R"({"metrics":{"speculative_decoding":null}})").spec.has_value());
}

TEST(ChunkReaderTest, ServerErrorsAreMarked) {
  EXPECT_TRUE(Read(R"({"error":{"message":"overloaded"}})").server_error);
  EXPECT_TRUE(Read(R"({"error":"boom"})").server_error);
  EXPECT_TRUE(Read(R"({"object":"error","message":"x"})").server_error);
  EXPECT_FALSE(Read(R"({"error":null,"object":"text_completion"})").server_error);
  // An `error` deeper in the chunk is not the server's error.
  EXPECT_FALSE(Read(R"({"choices":[{"error":"x","text":"a"}]})").server_error);
}

TEST(ChunkReaderTest, DeepNestingIsSkippedUnread) {
  // Deeper than the reader tracks (15), within Boost.JSON's default limit (32).
  std::string deep = R"({"x":)" + std::string(20, '[') + std::string(20, ']') +
                     R"(,"choices":[{"text":"a"}],"usage":{"completion_tokens":1}})";
  ChunkFacts f = Read(deep);
  EXPECT_NE(f.channels, 0);
  EXPECT_EQ(f.completion_tokens, 1);
}

TEST(ChunkReaderTest, EachTextMemberSetsItsChannel) {
  using metrics::kChannelContent, metrics::kChannelReasoning, metrics::kChannelToolCall;
  EXPECT_EQ(Read(R"({"choices":[{"text":"a"}]})").channels, kChannelContent);
  EXPECT_EQ(Read(R"({"choices":[{"delta":{"reasoning_content":"hm"}}]})").channels,
            kChannelReasoning);
  EXPECT_EQ(Read(R"({"choices":[{"delta":{"reasoning":"hm","content":"a"}}]})").channels,
            kChannelReasoning | kChannelContent);
  EXPECT_EQ(Read(R"({"choices":[{"delta":{"tool_calls":[{"function":{"name":"f"}}]}}]})").channels,
            kChannelToolCall);
  EXPECT_EQ(Read(R"({"choices":[{"delta":{"reasoning_content":""}}]})").channels, 0);
}

// Without kept text the arguments are still read (they are validated at the end),
// the index may come after the function, and a call without a function is no call.
TEST(ChunkReaderTest, ToolCallFragmentsCarryTheirIndexWhateverTheMemberOrder) {
  ChunkFacts f = Read(R"({"choices":[{"delta":{"tool_calls":[)"
                      R"({"function":{"name":"get","arguments":"{\"a\":"},"index":1},)"
                      R"({"index":0,"function":{"name":"put"}},)"
                      R"({"index":2,"type":"function"}]}}]})");
  ASSERT_EQ(f.tool_calls.size(), 2u);
  EXPECT_EQ(f.tool_calls[0].index, 1);
  EXPECT_EQ(f.tool_calls[0].arguments, "{\"a\":");
  EXPECT_EQ(f.tool_calls[1].index, 0);
  EXPECT_EQ(f.tool_calls[1].arguments, "");
  EXPECT_TRUE(Read(R"({"choices":[{"text":"a"}]})").tool_calls.empty());
}

TEST(ChunkReaderTest, AnythingButOneJsonObjectFails) {
  for (std::string_view bad : {"{not json", "[1,2]", "42", "\"s\"", "{} {}", "{\"a\":1", ""}) {
    ChunkFacts f;
    EXPECT_FALSE(ReadChunk(bad, &f, nullptr).ok()) << bad;
  }
  ChunkFacts f;
  EXPECT_TRUE(ReadChunk("{\"a\":1}  ", &f, nullptr).ok());  // trailing whitespace is fine
}

}  // namespace
}  // namespace servebench::client
