// A small blocking HTTP/1.1 client for OpenAI-compatible servers, used by the eval
// worker threads (the load generator's client/ is built for timing, this one for
// correctness). Plain http only. Each HttpClient owns one keep-alive connection
// and its own io_context: use one per thread; not thread-safe.
//
// Post() makes up to 1 + max_retries attempts. Retried: connection failures,
// timeouts, HTTP 408, 429 and 5xx. Not retried: other 4xx (the request itself is
// wrong). Waits retry_backoff_ms, doubling each time (capped at 8 s), between
// attempts, and gives up early when `cancel` becomes true.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace servebench::eval {

struct HttpTarget {
  std::string host;         // e.g. 127.0.0.1
  std::string port;         // e.g. 8000
  std::string path_prefix;  // "" or "/v1" or another mount point, no trailing '/'
};

// Parses "http://HOST[:PORT][/PATH]"; a trailing "/v1" is dropped (request paths
// carry it). InvalidArgument for https or anything unparsable.
StatusOr<HttpTarget> ParseBaseUrl(std::string_view url);

struct HttpClientSettings {
  uint32_t max_retries = 3;
  uint64_t timeout_ms = 300'000;  // one attempt: connect + write + read
  uint64_t retry_backoff_ms = 250;
  // false: one connection per request ("Connection: close"), for servers that
  // mishandle a second request on a kept-alive connection.
  bool keep_alive = true;
};

struct HttpReply {
  std::string body;  // the 200 response body
  uint32_t attempts = 0;
};

class HttpClient {
 public:
  HttpClient(HttpTarget target, HttpClientSettings settings);
  ~HttpClient();

  // POSTs `body` (JSON) to path_prefix + `path`. Returns the body of a 200 reply.
  // Errors: Unavailable / DeadlineExceeded after the last retry, InvalidArgument
  // for a non-retried 4xx (message holds status and body), Cancelled.
  // `attempts_out` (optional) receives the number of attempts made.
  StatusOr<HttpReply> Post(std::string_view path, std::string_view body,
                           const std::atomic<bool>* cancel, uint32_t* attempts_out = nullptr);

 private:
  class Connection;
  HttpTarget target_;
  HttpClientSettings settings_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace servebench::eval
