#include "net/server_probe.h"

#include <fmt/format.h>

#include "net/http_fetch.h"
#include "net/url.h"

namespace servebench::net {

Status ProbeServer(const std::string& base_url, const TlsOptions& tls, double timeout_s) {
  SB_ASSIGN_OR_RETURN(Url url, ParseUrl(base_url));
  StatusOr<HttpReply> reply = HttpFetch(url, "/v1/models", "", timeout_s, {}, tls);
  if (reply.ok()) return Status::Ok();
  if (reply.status().code() == StatusCode::kInvalidArgument) return reply.status();
  if (reply.status().code() == StatusCode::kDeadlineExceeded) {
    return Status::Unavailable(
        fmt::format("server at {} accepted the connection but did not answer GET /v1/models "
                    "within {:g} s (a hung or still-loading server?)",
                    base_url, timeout_s));
  }
  return Status::Unavailable(
      fmt::format("server at {} is not reachable ({})", base_url, reply.status().message()));
}

}  // namespace servebench::net
