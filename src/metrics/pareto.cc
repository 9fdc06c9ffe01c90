#include "metrics/pareto.h"

#include <algorithm>
#include <cmath>

namespace servebench::metrics {

std::vector<CurvePoint> ParetoFrontier(std::vector<CurvePoint> points) {
  // Highest interactivity first, ties by throughput, so the dominated twin comes
  // second; a point survives only with strictly more throughput than every point of
  // at least its interactivity seen before it.
  std::stable_sort(points.begin(), points.end(), [](const CurvePoint& a, const CurvePoint& b) {
    if (a.intvty != b.intvty) return a.intvty > b.intvty;
    return a.tput_per_gpu > b.tput_per_gpu;
  });
  std::vector<CurvePoint> frontier;
  double best = -INFINITY;
  for (const CurvePoint& p : points) {
    if (p.tput_per_gpu > best) {
      frontier.push_back(p);
      best = p.tput_per_gpu;
    }
  }
  std::reverse(frontier.begin(), frontier.end());
  return frontier;
}

}  // namespace servebench::metrics
