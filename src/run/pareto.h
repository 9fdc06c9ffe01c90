// The Pareto frontier of throughput per GPU against interactivity (tok/s/user):
// the curve InferenceX plots. A point is on the frontier when no other point is at
// least as good on both axes and better on one. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace servebench::run {

struct CurvePoint {
  double interactivity = 0;       // tok/s/user = 1000 / median TPOT (ms), metrics.md §5
  double throughput_per_gpu = 0;  // output tok/s per GPU, metrics.md §6
  int concurrency = 0;
  std::string label;  // which configuration (e.g. "tp2 eagle3")
};

// Frontier points, sorted by ascending interactivity (descending throughput).
std::vector<CurvePoint> ParetoFrontier(const std::vector<CurvePoint>& points);

}  // namespace servebench::run
