// The one Pareto frontier of servebench: throughput per GPU against interactivity,
// the curve InferenceX plots and regression.md §3 scores. A point is on the frontier
// when no other point has at least its interactivity and at least its throughput with
// one of them strictly more; of exact duplicates one is kept. Used by the run report,
// the dashboard and the curve verdicts alike. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <vector>

namespace servebench::metrics {

struct CurvePoint {
  double intvty = 0;        // x: median interactivity, tok/s/user (Headline::median_intvty)
  double tput_per_gpu = 0;  // y: tok/s/GPU (Headline::tput_per_gpu)
  // The caller's own index (a record, a configuration), carried through untouched so
  // a frontier point can be traced back to what it came from.
  size_t tag = 0;
};

// The frontier of `points`, sorted by ascending interactivity (so descending
// throughput).
std::vector<CurvePoint> ParetoFrontier(std::vector<CurvePoint> points);

}  // namespace servebench::metrics
