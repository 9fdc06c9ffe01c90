#include "net/http_response_parser.h"

#include <gtest/gtest.h>

namespace servebench::net {
namespace {

TEST(HttpResponseParserTest, ChunkedBodyIsDecodedAcrossArbitrarySplits) {
  std::string wire =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
      "7\r\ndata: 1\r\n2\r\n\n\n\r\n0\r\n\r\n";
  for (size_t split = 1; split < wire.size(); ++split) {
    std::string body;
    HttpResponseParser p([&](std::string_view b) { body.append(b); });
    ASSERT_TRUE(p.Feed(wire.substr(0, split)).ok());
    ASSERT_TRUE(p.Feed(wire.substr(split)).ok());
    EXPECT_TRUE(p.complete()) << split;
    EXPECT_EQ(body, "data: 1\n\n");
    EXPECT_EQ(p.status(), 200);
    EXPECT_FALSE(p.connection_close());
  }
}

TEST(HttpResponseParserTest, ChunkSizesAreHexOfEitherCaseAndMayCarryExtensions) {
  std::string body;
  HttpResponseParser p([&](std::string_view b) { body.append(b); });
  ASSERT_TRUE(p.Feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "a\r\n0123456789\r\n1A;name=value\r\nabcdefghijklmnopqrstuvwxyz\r\n"
                     "0\r\n\r\n")
                  .ok());
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(body, "0123456789abcdefghijklmnopqrstuvwxyz");
  for (std::string_view bad : {"zz\r\n", ";ext\r\n", "\r\n", "10000000000000000\r\n"}) {
    HttpResponseParser q([](std::string_view) {});
    ASSERT_TRUE(q.Feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n").ok());
    EXPECT_FALSE(q.Feed(bad).ok()) << bad;
  }
}

TEST(HttpResponseParserTest, ContentLengthBodyAndErrorStatus) {
  std::string body;
  HttpResponseParser p([&](std::string_view b) { body.append(b); });
  ASSERT_TRUE(p.Feed("HTTP/1.1 500 Internal Server Error\r\ncontent-length: 5\r\n\r\nerror").ok());
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.status(), 500);
  EXPECT_EQ(body, "error");
}

TEST(HttpResponseParserTest, BodyWithoutLengthRunsToClose) {
  std::string body;
  HttpResponseParser p([&](std::string_view b) { body.append(b); });
  ASSERT_TRUE(p.Feed("HTTP/1.0 200 OK\r\n\r\nabc").ok());
  EXPECT_FALSE(p.complete());
  p.OnEof();
  EXPECT_TRUE(p.complete());
  EXPECT_TRUE(p.connection_close());
  EXPECT_EQ(body, "abc");
}

TEST(HttpResponseParserTest, GarbageIsRejected) {
  HttpResponseParser p([](std::string_view) {});
  EXPECT_FALSE(p.Feed("SSH-2.0-OpenSSH\r\n").ok());
  HttpResponseParser q([](std::string_view) {});
  EXPECT_FALSE(q.Feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").ok());
}

TEST(HttpResponseParserTest, ResetAllowsASecondResponseOnTheConnection) {
  int bodies = 0;
  HttpResponseParser p([&](std::string_view) { ++bodies; });
  ASSERT_TRUE(p.Feed("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na").ok());
  p.Reset();
  ASSERT_TRUE(p.Feed("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\nb").ok());
  EXPECT_TRUE(p.complete());
  EXPECT_TRUE(p.connection_close());
  EXPECT_EQ(bodies, 2);
}

}  // namespace
}  // namespace servebench::net
