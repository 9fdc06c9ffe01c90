// Which metrics are judged, which way is better, and how big a move must be before
// it counts (regression.md §2 "Minimum effect sizes"). Data, not code: one row per
// metric name as it appears in an Observation — a headline metric's name
// (metrics/headline.h) or a curve score's. Headline metrics without a row are shown,
// never judged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace servebench::verdict {

enum class Better { kHigher, kLower };

struct MetricSpec {
  std::string name;  // e.g. "tput_per_gpu", "median_ttft_ms", "pareto_auc"
  Better better = Better::kHigher;
  double delta_min = 0.025;  // minimum relative effect
  double k = 3;              // multiple of the measured noise
  // Derived metrics (input throughput, interactivity) are shown, not counted.
  bool counted = true;
};

// The spec for `name`, or nullptr when the metric is not judged.
const MetricSpec* FindMetric(std::string_view name);

// All judged metrics, in display order.
const std::vector<MetricSpec>& AllMetrics();

}  // namespace servebench::verdict
