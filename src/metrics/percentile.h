// Statistics of a sample set exactly as metrics.md §4 defines them: NumPy's
// default (linear) percentile and the population standard deviation (ddof = 0).
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <vector>

namespace servebench::metrics {

// The P-th percentile (0 ≤ P ≤ 100) of `sorted` (ascending), NumPy "linear":
// h = (N − 1)·P/100; x[⌊h⌋] + (h − ⌊h⌋)·(x[⌈h⌉] − x[⌊h⌋]). nullopt when empty.
std::optional<double> PercentileOfSorted(const std::vector<double>& sorted, double p);

// mean, median, population std and the requested percentiles of one metric.
struct Stats {
  size_t count = 0;  // 0: the set was empty and every value below is meaningless
  double mean = 0, median = 0, std = 0, min = 0, max = 0;
  std::vector<double> percentile_points;  // the P values, as asked
  std::vector<double> percentile_values;  // same order as percentile_points
  bool empty() const { return count == 0; }
  // The value at P, or nullopt when P was not asked or the set is empty.
  std::optional<double> At(double p) const;
};

// Sorts a copy of `samples` and computes Stats at `percentiles`.
Stats ComputeStats(std::vector<double> samples, const std::vector<double>& percentiles);

}  // namespace servebench::metrics
