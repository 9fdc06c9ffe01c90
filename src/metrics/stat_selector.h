// StatSelector: one statistic of a RunSummary named as `servebench search --slo` and
// its result spell it, "<metric>_<stat>_ms": metric one of the latency sets of
// metrics.md §3-§4 (ttft, ttft_from_schedule, ttfo, tpot, itl, itl_per_token, e2el,
// e2el_from_schedule, issue_delay, client_queue_time) and stat `mean`, `median` or
// `p<P>` (0 <= P <= 100; p50 is the median). The one place a name becomes a number,
// so every SLO check reads the same statistic the result writer prints. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "metrics/run_summary.h"

namespace servebench::metrics {

struct StatSelector {
  std::string name;    // as given, e.g. "ttft_p99_ms"
  std::string metric;  // "ttft"
  Stats RunSummary::*stats = nullptr;
  enum class Kind { kMean, kMedian, kPercentile } kind = Kind::kMedian;
  double percentile = 50;  // kPercentile only
};

// Fails with the allowed forms when `name` names no statistic.
StatusOr<StatSelector> ParseStatSelector(std::string_view name);

// The percentile a summary must have computed for `s` (ComputeRunSummary's
// SummaryInputs::percentiles), or nullopt for mean and median.
std::optional<double> RequiredPercentile(const StatSelector& s);

// The statistic in `summary`, in ms; nullopt when its set is empty (no successful
// request) or the percentile was not computed.
std::optional<double> SelectStat(const RunSummary& summary, const StatSelector& s);

}  // namespace servebench::metrics
