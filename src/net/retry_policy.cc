#include "net/retry_policy.h"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

namespace servebench::net {

bool IsRetryableStatus(int http_status) {
  return http_status == 408 || http_status == 429 || (http_status >= 500 && http_status <= 599);
}

uint64_t RetryBackoffMs(uint64_t base_ms, uint32_t retry) {
  if (retry == 0) return 0;
  uint64_t wait = base_ms;
  for (uint32_t i = 1; i < retry && wait < kMaxRetryBackoffMs; ++i) wait *= 2;
  return wait < kMaxRetryBackoffMs ? wait : kMaxRetryBackoffMs;
}

bool IsStaleConnection(bool sent_on_reused_connection, uint64_t response_bytes_received,
                       const boost::system::error_code& error) {
  namespace asio = boost::asio;
  if (!sent_on_reused_connection || response_bytes_received > 0 || !error) return false;
  return error == asio::error::eof || error == asio::error::connection_reset ||
         error == asio::error::broken_pipe || error == asio::error::connection_aborted ||
         error == asio::ssl::error::stream_truncated;
}

}  // namespace servebench::net
