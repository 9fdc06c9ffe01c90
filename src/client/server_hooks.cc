#include "client/server_hooks.h"

#include <fmt/format.h>

#include "common/log.h"
#include "net/http_fetch.h"

namespace servebench::client {
namespace json = boost::json;

HookOutcome CallHook(const net::Url& base_url, const std::string& endpoint, const std::string& flag,
                     double timeout_s, const net::TlsOptions& tls) {
  HookOutcome out;
  out.endpoint = endpoint;
  net::Url base = base_url;
  const std::string path = base.path + endpoint;
  base.path.clear();
  const std::string shown =
      fmt::format("{}://{}{}", base.tls ? "https" : "http", base.HostHeader(), path);
  StatusOr<net::HttpReply> reply = net::HttpFetch(base, path, "{}", timeout_s, {}, tls);
  if (!reply.ok()) {
    out.error = fmt::format("no reply: {}", reply.status().ToString());
  } else {
    out.http_status = reply->status;
    out.body = reply->body.substr(0, 4096);
    out.ok = reply->status >= 200 && reply->status < 300;
    if (!out.ok) {
      out.error = fmt::format("HTTP {}{}", reply->status,
                              reply->status == 404 || reply->status == 405
                                  ? " (the server has no such endpoint, or it is disabled)"
                                  : "");
    }
  }
  if (!out.ok) {
    Log(LogLevel::kWarning, "{}: POST {} failed: {}; the run goes on without it", flag, shown,
        out.error);
  }
  return out;
}

json::value HookJson(const HookOutcome& o) {
  json::object j{{"endpoint", o.endpoint},
                 {"http_status", o.http_status ? json::value(*o.http_status) : json::value()},
                 {"ok", o.ok},
                 {"error", o.ok ? json::value() : json::value(o.error)}};
  if (o.ok && !o.body.empty()) {
    boost::system::error_code ec;
    json::value body = json::parse(o.body, ec);
    if (!ec && body.is_object()) {
      if (const json::value* trace = body.as_object().if_contains("trace");
          trace != nullptr && trace->is_string()) {
        j["trace"] = *trace;
      }
    }
  }
  return j;
}

}  // namespace servebench::client
