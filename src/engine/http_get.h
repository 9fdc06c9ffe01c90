// A small blocking HTTP/1.1 GET for the supervisor's readiness probes (/health,
// /v1/models, /version). Not the load generator's client (client/ owns that): one
// request per connection, a whole-request deadline, no TLS. Thread-safe (no state).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace servebench::engine {

struct HttpResponse {
  int status = 0;    // HTTP status code
  std::string body;  // at most 8 MiB
};

// GET http://host:port/path. Any HTTP status is a response (check `status`);
// Unavailable when nothing accepts the connection or it breaks; DeadlineExceeded
// when the whole exchange takes longer than `timeout_ms`.
StatusOr<HttpResponse> HttpGet(const std::string& host, int port, const std::string& path,
                               int64_t timeout_ms);

}  // namespace servebench::engine
