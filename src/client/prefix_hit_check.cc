#include "client/prefix_hit_check.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

namespace servebench::client {
namespace json = boost::json;

json::value HitFraction(double f) { return std::round(f * 1e6) / 1e6; }

std::optional<double> CompareServerHits(const std::optional<PrefixCacheSide>& server,
                                        const ExpectedHits& expected, double tolerance,
                                        json::object* o, metrics::Validity* validity) {
  std::optional<double> server_rate;
  std::string note;
  if (server) {
    server_rate = metrics::PrefixHitRate(server->before, server->after);
    // The engine exports the counters but looked nothing up while the workload sent its
    // prompts: its prefix cache is off, so nothing hit.
    if (!server_rate && !server->after.source.empty() &&
        server->after.source == server->before.source && expected.sent_prompt_tokens &&
        server->after.queried_tokens == server->before.queried_tokens) {
      server_rate = 0.0;
      note = "the engine looked no prompt token up in its prefix cache (prefix caching off?)";
    }
  }
  if (!server_rate) {
    (*o)["server"] = nullptr;  // no counters (or nothing queried): nothing to compare
    (*o)["agree"] = nullptr;
    return std::nullopt;
  }
  json::object side;
  side["source"] = server->after.source;
  side["hit_rate"] = HitFraction(*server_rate);
  if (!note.empty()) side["note"] = note;
  side["queried_tokens"] = server->after.queried_tokens - server->before.queried_tokens;
  side["hit_tokens"] = server->after.hit_tokens - server->before.hit_tokens;
  if (server->after.kv_usage) side["kv_usage_at_end"] = *server->after.kv_usage;
  (*o)["server"] = std::move(side);
  if (!expected.applicable) {
    (*o)["agree"] = nullptr;
    return server_rate;
  }
  const double gap = std::fabs(*server_rate - expected.rate);
  (*o)["agree"] = gap <= tolerance;
  if (gap > tolerance) {
    validity->Add("prefix_hits_disagree",
                  fmt::format("the server hit {:.2f} % of prompt tokens in its prefix cache; {} "
                              "should hit {:.2f} % (tolerance {:.2f} points): {}",
                              *server_rate * 100, expected.what, expected.rate * 100,
                              tolerance * 100, expected.cause));
  }
  return server_rate;
}

}  // namespace servebench::client
