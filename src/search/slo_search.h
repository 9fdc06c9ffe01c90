// SloSearch: finds the highest concurrency or request rate whose run meets every SLO
// limit, for one running server: bracketing (doubling from `min`) then bisection, with
// a monotonicity guard and repeats beside the boundary (search_settings.h). The probe
// itself is injected (ProbeRunner) so the strategy is tested without a server;
// BenchProbeRunner runs each probe as a real load run. Blocks its caller; `cancel` may
// be set from any thread (a signal handler included).
#pragma once

#include <atomic>
#include <boost/json.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/client.h"
#include "common/status.h"
#include "search/search_settings.h"

namespace servebench::search {

// What one probe run gives the search.
struct ProbeRun {
  metrics::RunSummary summary;
  boost::json::object result;  // the run's result JSON (vllm-bench-compatible)
  bool interrupted = false;
};

// Runs one probe at `value` (a concurrency or a rate). A Status stops the search.
using ProbeRunner = std::function<StatusOr<ProbeRun>(double value)>;

struct Probe {
  double value = 0;
  bool valid = false;                // the run broke no validity rule (metrics.md §8)
  std::vector<std::string> reasons;  // the validity rules it broke
  std::vector<SloCheck> checks;      // one per limit, in --slo order
  bool meets = false;                // valid and every limit met
  bool interrupted = false;          // cut short by Ctrl-C: kept, but decides nothing
  boost::json::object result;
  std::string started_at, ended_at;  // RFC 3339 UTC, wall clock (the probe's record)
};

struct SearchResult {
  Vary vary = Vary::kConcurrency;
  // The highest value that met the SLO (by majority where repeated), with every value
  // probed below it meeting it too; nullopt when even `min` did not.
  std::optional<double> boundary;
  std::optional<double> first_failing;  // the lowest value above it that failed
  bool capped_at_max = false;           // `max` itself met the SLO: the boundary may be higher
  bool non_monotone = false;            // some value met the SLO above one that did not
  bool probe_limit_reached = false;
  bool interrupted = false;
  Status stopped = Status::Ok();  // a probe that could not run at all (server gone, ...)
  std::vector<Probe> probes;      // in the order run
};

// Never fails as a whole: a probe that cannot run ends the search with `stopped` set
// and everything measured so far kept.
SearchResult RunSloSearch(const SearchSettings& settings, const ProbeRunner& probe,
                          const std::atomic<bool>* cancel = nullptr);

// The load of the probe at `value`: settings.bench with the varied knob set and the
// limits' percentiles added to those computed.
client::BenchSettings ProbeSettings(const SearchSettings& settings, double value);

// A ProbeRunner that runs client::RunBench(ProbeSettings(settings, value), cancel).
ProbeRunner BenchProbeRunner(const SearchSettings& settings, const std::atomic<bool>* cancel);

// The search as JSON (docs/search.md): max_concurrency_at_slo or
// max_request_rate_at_slo, the limits, the range, the flags above and every probe with
// its values and result.
boost::json::object SearchResultJson(const SearchSettings& settings, const SearchResult& result);

// The probes as a table and the answer in one line, for the terminal.
std::string SearchReport(const SearchSettings& settings, const SearchResult& result);

}  // namespace servebench::search
