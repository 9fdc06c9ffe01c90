#include "net/retry_policy.h"

#include <gtest/gtest.h>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

namespace servebench::net {
namespace {

namespace asio = boost::asio;

TEST(RetryPolicyTest, ServerSideAndThrottlingStatusesAreRetryable) {
  for (int status : {408, 429, 500, 502, 503, 504, 599}) EXPECT_TRUE(IsRetryableStatus(status));
  for (int status : {200, 204, 301, 400, 401, 404, 413, 422, 600}) {
    EXPECT_FALSE(IsRetryableStatus(status)) << status;
  }
}

TEST(RetryPolicyTest, BackoffDoublesPerRetryUpToTheCap) {
  EXPECT_EQ(RetryBackoffMs(250, 0), 0u);
  EXPECT_EQ(RetryBackoffMs(250, 1), 250u);
  EXPECT_EQ(RetryBackoffMs(250, 2), 500u);
  EXPECT_EQ(RetryBackoffMs(250, 3), 1000u);
  EXPECT_EQ(RetryBackoffMs(250, 10), kMaxRetryBackoffMs);
  EXPECT_EQ(RetryBackoffMs(20'000, 1), kMaxRetryBackoffMs);
}

TEST(RetryPolicyTest, OnlyAReusedConnectionClosedBeforeAnyResponseByteIsStale) {
  const boost::system::error_code eof = asio::error::eof;
  EXPECT_TRUE(IsStaleConnection(true, 0, eof));
  EXPECT_TRUE(IsStaleConnection(true, 0, asio::error::connection_reset));
  EXPECT_TRUE(IsStaleConnection(true, 0, asio::error::broken_pipe));
  EXPECT_TRUE(IsStaleConnection(true, 0, asio::ssl::error::stream_truncated));
  EXPECT_FALSE(IsStaleConnection(false, 0, eof)) << "a fresh connection: the server failed";
  EXPECT_FALSE(IsStaleConnection(true, 1, eof)) << "cut off mid-response: a real failure";
  EXPECT_FALSE(IsStaleConnection(true, 0, asio::error::timed_out));
  EXPECT_FALSE(IsStaleConnection(true, 0, asio::error::operation_aborted));
  EXPECT_FALSE(IsStaleConnection(true, 0, boost::system::error_code()));
}

}  // namespace
}  // namespace servebench::net
