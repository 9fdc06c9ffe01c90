#include "client/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace servebench::client {
namespace {

struct Seen {
  std::string event, data;
  int64_t t;
};

class SseParserTest : public ::testing::Test {
 protected:
  SseParser parser_{[this](std::string_view e, std::string_view d, int64_t t) {
    seen_.push_back({std::string(e), std::string(d), t});
  }};
  std::vector<Seen> seen_;
};

TEST_F(SseParserTest, EventSplitAcrossTwoReadsIsDeliveredOnceWithTheSecondReadsTime) {
  ASSERT_TRUE(parser_.Feed("data: {\"a\"", 100).ok());
  EXPECT_TRUE(seen_.empty());
  ASSERT_TRUE(parser_.Feed(":1}\n\n", 200).ok());
  ASSERT_EQ(seen_.size(), 1u);
  EXPECT_EQ(seen_[0].data, "{\"a\":1}");
  EXPECT_EQ(seen_[0].t, 200);
}

TEST_F(SseParserTest, DataLineWhoseBlankLineComesInTheNextReadOutlivesItsReadBuffer) {
  // The parser holds a complete data line as a view into the read; the read buffer is
  // reused before the blank line arrives, so the line must have been copied by then.
  std::string buf = "data: first\n";
  ASSERT_TRUE(parser_.Feed(buf, 1).ok());
  buf.assign("XXXXXXXXXXXX");
  ASSERT_TRUE(parser_.Feed("\ndata: second\ndata: third\n\ndata:\n\n", 2).ok());
  ASSERT_EQ(seen_.size(), 3u);
  EXPECT_EQ(seen_[0].data, "first");
  EXPECT_EQ(seen_[0].t, 1);  // stamped at its data line's read
  EXPECT_EQ(seen_[1].data, "second\nthird");
  EXPECT_EQ(seen_[2].data, "");
}

TEST_F(SseParserTest, ManyEventsInOneReadShareItsTime) {
  ASSERT_TRUE(parser_.Feed("data: 1\n\ndata: 2\n\ndata: [DONE]\n\n", 7).ok());
  ASSERT_EQ(seen_.size(), 3u);
  EXPECT_EQ(seen_[2].data, "[DONE]");
  for (const Seen& s : seen_) EXPECT_EQ(s.t, 7);
}

TEST_F(SseParserTest, CrlfAndBareCrEndLinesAndCrlfSplitAcrossReadsIsOneLineEnd) {
  ASSERT_TRUE(parser_.Feed("data: a\r", 1).ok());
  ASSERT_TRUE(parser_.Feed("\n\r\n", 2).ok());
  ASSERT_TRUE(parser_.Feed("data: b\r\r", 3).ok());
  ASSERT_EQ(seen_.size(), 2u);
  EXPECT_EQ(seen_[0].data, "a");
  EXPECT_EQ(seen_[0].t, 1);
  EXPECT_EQ(seen_[1].data, "b");
}

TEST_F(SseParserTest, CommentsAreIgnoredAndMultiLineDataIsJoinedWithNewline) {
  ASSERT_TRUE(parser_.Feed(": keep-alive\n\nevent: x\ndata: one\ndata:two\nid: 5\n\n", 9).ok());
  ASSERT_EQ(seen_.size(), 1u);
  EXPECT_EQ(seen_[0].event, "x");
  EXPECT_EQ(seen_[0].data, "one\ntwo");
}

TEST_F(SseParserTest, EventIsStampedAtItsLastDataLineNotAtTheBlankLine) {
  ASSERT_TRUE(parser_.Feed("data: x\n", 10).ok());
  ASSERT_TRUE(parser_.Feed("\n", 20).ok());
  ASSERT_EQ(seen_.size(), 1u);
  EXPECT_EQ(seen_[0].t, 10);
}

TEST_F(SseParserTest, ByteByByteFeedGivesTheSameEvents) {
  std::string stream = "data: {\"x\": 1}\r\n\r\n: c\n\ndata: y\n\n";
  for (size_t i = 0; i < stream.size(); ++i) ASSERT_TRUE(parser_.Feed(stream.substr(i, 1), i).ok());
  ASSERT_EQ(seen_.size(), 2u);
  EXPECT_EQ(seen_[0].data, "{\"x\": 1}");
  EXPECT_EQ(seen_[1].data, "y");
}

TEST_F(SseParserTest, EventWithoutDataIsNotDispatched) {
  ASSERT_TRUE(parser_.Feed("event: ping\n\n", 1).ok());
  EXPECT_TRUE(seen_.empty());
}

}  // namespace
}  // namespace servebench::client
