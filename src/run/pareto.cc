#include "run/pareto.h"

#include <algorithm>

namespace servebench::run {

std::vector<CurvePoint> ParetoFrontier(const std::vector<CurvePoint>& points) {
  std::vector<CurvePoint> sorted = points;
  // Highest interactivity first; ties broken by throughput so the dominated twin goes.
  std::sort(sorted.begin(), sorted.end(), [](const CurvePoint& a, const CurvePoint& b) {
    if (a.interactivity != b.interactivity) return a.interactivity > b.interactivity;
    return a.throughput_per_gpu > b.throughput_per_gpu;
  });
  std::vector<CurvePoint> frontier;
  double best_throughput = -1;
  for (const auto& p : sorted) {
    // Every point seen so far has at least this interactivity, so p survives only
    // with strictly more throughput than all of them.
    if (p.throughput_per_gpu > best_throughput) {
      frontier.push_back(p);
      best_throughput = p.throughput_per_gpu;
    }
  }
  std::reverse(frontier.begin(), frontier.end());
  return frontier;
}

}  // namespace servebench::run
