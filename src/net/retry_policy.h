// The rules servebench's HTTP clients share about trying again: which answers are
// worth another attempt, how long to wait before it, and when a kept-alive
// connection was stale rather than the request failing. net::HttpClient applies all
// three; the load generator's event loop (client/load_worker) applies
// IsStaleConnection to its pooled connections. Pure functions; thread-safe.
#pragma once

#include <boost/system/error_code.hpp>
#include <cstdint>

namespace servebench::net {

// Backoff never grows past this, however many retries are allowed.
inline constexpr uint64_t kMaxRetryBackoffMs = 8'000;

// True for the answers a server gives when the same request may succeed later:
// 408 Request Timeout, 429 Too Many Requests and every 5xx. Other statuses say the
// request itself is wrong (4xx) or that it succeeded.
bool IsRetryableStatus(int http_status);

// The wait before retry number `retry` (1 is the first retry): `base_ms` doubled
// for each retry after the first, at most kMaxRetryBackoffMs. 0 for retry 0.
uint64_t RetryBackoffMs(uint64_t base_ms, uint32_t retry);

// Whether a request that failed with `error` met a stale pooled connection and
// should be re-sent once on a fresh one (not counted as an attempt).
//
// A server may close a kept-alive connection while it is idle (its keep-alive
// timeout), and llama.cpp's llama-server closes after every streamed response
// without sending `Connection: close`. The next request on that connection then
// reads end-of-file or a reset before a single byte of its response. That is not the
// server failing this request. Stale means all of: the request went out on a
// connection that had already carried a response, no byte of this response arrived,
// and the error is the peer closing (EOF, reset, broken pipe, aborted, or a TLS
// stream truncated). A timeout, a cancel, a fresh connection or a response cut off
// part-way is a real failure.
bool IsStaleConnection(bool sent_on_reused_connection, uint64_t response_bytes_received,
                       const boost::system::error_code& error);

}  // namespace servebench::net
