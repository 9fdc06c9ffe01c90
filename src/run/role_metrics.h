// Role metrics: what each role of a serve session of several processes did during
// one load run, from its own /metrics (disagg.md §6: scrape each role's endpoints
// separately, label the series by role, sum across DP ranks and replicas within a
// role, take deltas around the run). The executor scrapes before and after every
// point of such a session; the record keeps the result (record::Record::role_metrics).
// Thread-safe: pure functions, and blocking scrapes over connections of their own.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "record/record.h"

namespace servebench::run {

// One /metrics endpoint of one process of the session, and (--profile) its profiler.
struct RoleEndpoint {
  std::string role;       // "prefill", "decode", "aggregated", "router"
  std::string process;    // "decode[1]"
  std::string url;        // http://host:port/metrics
  std::vector<int> gpus;  // GPU indices on its node, as the session plan gives them
  // --profile: the folder its profiler writes into (engine::SessionProcess::profile_dir);
  // "" = none (the router, or no --profile). Its /start_profile is at base_url.
  std::string profile_dir;
  std::string base_url;  // http://host:port
};

// Per role, per metric name: the value summed over label sets and the role's
// processes. Histogram buckets and `_created` series are left out.
using RoleSamples = std::map<std::string, std::map<std::string, double>>;

// Scrapes every endpoint once (each within timeout_s). An endpoint that cannot be
// read is left out and named in `unreadable` (a role whose process died, say).
RoleSamples ScrapeRoles(const std::vector<RoleEndpoint>& endpoints, double timeout_s,
                        std::vector<std::string>* unreadable = nullptr);

// What the record keeps (record::RoleMetrics): counters (names ending _total, _sum
// or _count) as after - before; anything else (gauges: queue lengths, KV usage) as
// its value after. A name only in `after` counts from 0 (SGLang omits a counter
// until its first increment, disagg.md §6).
record::RoleMetrics RoleMetricsOver(const RoleSamples& before, const RoleSamples& after);

}  // namespace servebench::run
