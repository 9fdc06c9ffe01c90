// Median aggregation of repeated load runs on one warm server (nightly
// `repetitions`, nightly-workloads.md §6): every numeric top-level scalar (not a
// bool) becomes its median across runs, key by key; every other key comes from the
// first run. The raw runs are kept whole under servebench.repetitions, so nothing
// measured is dropped (the per-key median can mix runs, e.g. P99 from one and the
// mean from another — the raw runs show that). Pure; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <vector>

namespace servebench::run {

// `runs` must not be empty. One run is returned unchanged (plus the markers).
boost::json::object AggregateMedian(const std::vector<boost::json::object>& runs);

}  // namespace servebench::run
