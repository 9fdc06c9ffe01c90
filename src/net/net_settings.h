// FetchSettings: how net::HttpClient talks to one server. Eval flags
// (--max-retries, --timeout-ms, --no-keep-alive, --ssl-ca-cert, --insecure), the
// supervisor's readiness probes and the load generator's side requests (/metrics,
// /tokenize, reachability) each fill one.
#pragma once

#include <cstdint>

#include "common/status.h"
#include "net/tls_options.h"

namespace servebench::net {

struct FetchSettings {
  // ---- One attempt ----
  // Connect (and TLS handshake), write and read of one attempt together; the whole
  // response must have arrived by then. Must be > 0.
  uint64_t timeout_ms = 10'000;
  // A response body larger than this fails the attempt (not retried): protects the
  // caller's memory from a server that never stops sending.
  uint64_t max_body_bytes = 64ull << 20;

  // ---- Retries (retry_policy.h) ----
  // Extra attempts after a transport failure, a timeout or a retryable status (408,
  // 429, 5xx); 0 = one attempt. A stale kept-alive connection is re-sent for free.
  uint32_t max_retries = 0;
  // Wait before the first retry; doubles per retry, at most kMaxRetryBackoffMs.
  uint64_t retry_backoff_ms = 250;
  // Of those retries, at most this many after an attempt that timed out: a server that
  // let a whole deadline pass is likely hung, and each retry would wait it out again.
  // Default: no separate limit.
  uint32_t max_timeout_retries = UINT32_MAX;

  // ---- Connection ----
  // true: one connection is kept open between requests (HTTP/1.1 keep-alive).
  // false: "Connection: close" and a new connection per request, for servers that
  // mishandle a second request on a kept-alive connection.
  bool keep_alive = true;
  TlsOptions tls;  // how https:// peers are verified; unused for http://
};

// The first invalid field, with its value and the allowed range.
Status Validate(const FetchSettings& settings);

}  // namespace servebench::net
