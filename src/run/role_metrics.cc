#include "run/role_metrics.h"

#include "metrics/prometheus.h"
#include "net/http_fetch.h"
#include "net/url.h"

namespace servebench::run {
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsCounter(const std::string& name) {
  return EndsWith(name, "_total") || EndsWith(name, "_sum") || EndsWith(name, "_count");
}

}  // namespace

RoleSamples ScrapeRoles(const std::vector<RoleEndpoint>& endpoints, double timeout_s,
                        std::vector<std::string>* unreadable) {
  RoleSamples out;
  for (const RoleEndpoint& e : endpoints) {
    auto url = net::ParseUrl(e.url);
    StatusOr<net::HttpReply> reply =
        url.ok()
            ? net::HttpFetch(net::Url{url->tls, url->host, url->port, ""}, url->path, "", timeout_s)
            : StatusOr<net::HttpReply>(url.status());
    auto samples =
        reply.ok() && reply->status == 200
            ? metrics::ParsePrometheusText(reply->body)
            : StatusOr<std::vector<metrics::PromSample>>(Status::Unavailable("no /metrics"));
    if (!samples.ok()) {
      if (unreadable != nullptr) unreadable->push_back(e.process);
      continue;
    }
    auto& role = out[e.role];
    for (const auto& s : *samples) {
      if (EndsWith(s.name, "_bucket") || EndsWith(s.name, "_created")) continue;
      role[s.name] += s.value;
    }
  }
  return out;
}

record::RoleMetrics RoleMetricsOver(const RoleSamples& before, const RoleSamples& after) {
  record::RoleMetrics out;
  for (const auto& [role, names] : after) {
    std::map<std::string, double> r;
    const auto b = before.find(role);
    for (const auto& [name, value] : names) {
      double v = value;
      if (IsCounter(name) && b != before.end()) {
        auto it = b->second.find(name);
        if (it != b->second.end()) v -= it->second;
      }
      r[name] = v;
    }
    out[role] = std::move(r);
  }
  return out;
}

}  // namespace servebench::run
