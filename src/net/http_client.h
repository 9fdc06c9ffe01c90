// HttpClient: servebench's one blocking HTTP/1.1 client, for every request outside
// the load generator's measured path: engine readiness probes, eval requests,
// Prometheus scrapes, /tokenize and the reachability probe (http_fetch.h).
//
// It keeps one connection (plain TCP or TLS: transport.h) to one server open between
// requests, retries as FetchSettings and retry_policy.h say, re-sends once on a stale
// kept-alive connection, and honours a cancel flag. The load generator does not use
// it: its event loop (client/load_worker) drives thousands of connections over the
// same Transport and HttpResponseParser.
//
// Thread-safety: none; one HttpClient per thread (each owns its io_context and its
// connection). Every call blocks its caller.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "net/net_settings.h"
#include "net/url.h"

namespace servebench::net {

struct HttpRequest {
  std::string method = "GET";
  std::string path = "/";  // appended to the base URL's path prefix: "/v1/models"
  std::string body;        // sent as application/json when not empty
  // Extra header lines (an API key, say). Their values never appear in a message.
  std::vector<std::pair<std::string, std::string>> headers;
};

struct HttpReply {
  int status = 0;         // the HTTP status of the last attempt
  std::string body;       // its body, de-chunked
  uint32_t attempts = 0;  // attempts made; a re-send on a stale connection is not one
  bool ok() const { return status >= 200 && status <= 299; }
};

class HttpClient {
 public:
  // A client for `base` (scheme, host, port, path prefix). Fails with
  // InvalidArgument, before anything connects, when `settings` is invalid or the TLS
  // CA file of an https:// base cannot be loaded.
  static StatusOr<HttpClient> Create(Url base, FetchSettings settings);
  HttpClient(HttpClient&&) noexcept;
  HttpClient& operator=(HttpClient&&) noexcept;
  ~HttpClient();

  // Sends `request`, retrying as the settings say. Every HTTP status is a reply
  // (check reply.status): a retryable status that outlasts the retries is returned
  // as the last attempt's reply. Errors, after the last attempt, name the method, the
  // URL and the cause: Unavailable (cannot resolve, connect or complete the TLS
  // handshake; the connection broke; the reply is not HTTP or is larger than
  // max_body_bytes), DeadlineExceeded (an attempt outlasted timeout_ms). Cancelled
  // as soon as `cancel` is seen true (checked every 50 ms, during backoff too).
  // An untrusted certificate or an unparsable reply is not retried.
  StatusOr<HttpReply> Send(const HttpRequest& request, const std::atomic<bool>* cancel = nullptr);

  StatusOr<HttpReply> Get(std::string path);
  StatusOr<HttpReply> Post(std::string path, std::string json_body,
                           const std::atomic<bool>* cancel = nullptr);

  const Url& base() const;
  // Attempts the last Send() made, whatever its outcome (an error carries no reply).
  uint32_t last_attempts() const { return last_attempts_; }
  // Connections opened so far, re-sends on stale connections included.
  int64_t connections_opened() const;

 private:
  class Connection;
  explicit HttpClient(std::unique_ptr<Connection> connection);
  std::unique_ptr<Connection> connection_;
  uint32_t last_attempts_ = 0;
};

}  // namespace servebench::net
