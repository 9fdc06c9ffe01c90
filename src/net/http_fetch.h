// One-shot HTTP requests outside the measured path: /metrics scrapes, /tokenize,
// the reachability probe. Each call opens a connection, sends one request with
// `Connection: close`, and reads the whole response within a deadline.
// Thread-safe (no shared state); blocks the caller.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "net/tls_options.h"
#include "net/url.h"

namespace servebench::net {

struct HttpReply {
  int status = 0;
  std::string body;
};

// GET (body empty) or POST (JSON body) to `url` + `path`. Unavailable when the
// server cannot be reached, DeadlineExceeded past `timeout_s`.
StatusOr<HttpReply> HttpFetch(const Url& url, const std::string& path, const std::string& body,
                              double timeout_s,
                              const std::vector<std::pair<std::string, std::string>>& headers = {},
                              const TlsOptions& tls_options = {});

}  // namespace servebench::net
