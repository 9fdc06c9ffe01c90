// One-shot HTTP requests outside the measured path: /metrics scrapes, /tokenize,
// the reachability probe. Each call is an HttpClient (http_client.h) used once: a
// connection of its own, `Connection: close`, no retries, the whole response
// within a deadline. Thread-safe (no shared state); blocks the caller.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "net/http_client.h"
#include "net/tls_options.h"
#include "net/url.h"

namespace servebench::net {

// GET (body empty) or POST (JSON body) to `url` + `path`. Any HTTP status is a
// reply. Unavailable when the server cannot be reached, DeadlineExceeded past
// `timeout_s`, InvalidArgument when `tls_options` cannot be used.
StatusOr<HttpReply> HttpFetch(const Url& url, const std::string& path, const std::string& body,
                              double timeout_s,
                              const std::vector<std::pair<std::string, std::string>>& headers = {},
                              const TlsOptions& tls_options = {});

}  // namespace servebench::net
