#include "metrics/percentile.h"

#include <algorithm>
#include <cmath>

namespace servebench::metrics {

std::optional<double> PercentileOfSorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::nullopt;
  double h = static_cast<double>(sorted.size() - 1) * p / 100.0;
  double lo = std::floor(h);
  double hi = std::ceil(h);
  double x_lo = sorted[static_cast<size_t>(lo)];
  double x_hi = sorted[static_cast<size_t>(hi)];
  return x_lo + (h - lo) * (x_hi - x_lo);
}

std::optional<double> Stats::At(double p) const {
  if (empty()) return std::nullopt;
  for (size_t i = 0; i < percentile_points.size(); ++i) {
    if (percentile_points[i] == p) return percentile_values[i];
  }
  return std::nullopt;
}

Stats ComputeStats(std::vector<double> samples, const std::vector<double>& percentiles) {
  Stats s;
  s.percentile_points = percentiles;
  s.count = samples.size();
  if (samples.empty()) {
    s.percentile_values.assign(percentiles.size(), 0.0);
    return s;
  }
  std::sort(samples.begin(), samples.end());
  // Sum in ascending order: the most accurate cheap order for positive samples.
  double sum = 0;
  for (double x : samples) sum += x;
  s.mean = sum / static_cast<double>(samples.size());
  double sq = 0;
  for (double x : samples) sq += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(samples.size()));  // population (ddof = 0)
  s.median = *PercentileOfSorted(samples, 50);
  s.min = samples.front();
  s.max = samples.back();
  for (double p : percentiles) s.percentile_values.push_back(*PercentileOfSorted(samples, p));
  return s;
}

}  // namespace servebench::metrics
