// The one liveness probe `servebench bench` and `servebench eval` run before any load:
// GET <base>/v1/models within a short deadline. Any HTTP reply (401 and 404 included)
// proves a server is answering; nothing listening, a refused connection, or a server
// that accepts the connection and never answers (a hung or still-loading engine) fails
// here, in seconds, with the same message for both commands, instead of each request
// waiting out its own deadline. Thread-safe; blocks the caller up to `timeout_s`.
#pragma once

#include <string>

#include "common/status.h"
#include "net/tls_options.h"

namespace servebench::net {

// Long enough for a busy engine to answer /v1/models, short enough that a dead
// server is reported before anyone wonders.
inline constexpr double kProbeTimeoutS = 10.0;

// OK when `base_url` answers. Unavailable otherwise:
//   "server at <url> is not reachable (<why>)"                          refused, no route
//   "server at <url> accepted the connection but did not answer GET /v1/models
//    within 10 s (a hung or still-loading server?)"                     silent
// InvalidArgument for a URL that does not parse or unusable TLS settings.
Status ProbeServer(const std::string& base_url, const TlsOptions& tls = {},
                   double timeout_s = kProbeTimeoutS);

}  // namespace servebench::net
