#include "net/http_fetch.h"

#include <algorithm>
#include <cmath>

namespace servebench::net {

StatusOr<HttpReply> HttpFetch(const Url& url, const std::string& path, const std::string& body,
                              double timeout_s,
                              const std::vector<std::pair<std::string, std::string>>& headers,
                              const TlsOptions& tls_options) {
  FetchSettings settings;
  settings.timeout_ms = static_cast<uint64_t>(std::max(1.0, std::ceil(timeout_s * 1000)));
  settings.keep_alive = false;
  settings.max_retries = 0;
  settings.tls = tls_options;
  SB_ASSIGN_OR_RETURN(HttpClient client, HttpClient::Create(url, settings));
  HttpRequest request;
  request.method = body.empty() ? "GET" : "POST";
  request.path = path;
  request.body = body;
  request.headers = headers;
  return client.Send(request);
}

}  // namespace servebench::net
