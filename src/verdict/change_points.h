// Stage 2 of regression.md §2: change points over a series' longer history, Otava
// style: the E-divisive energy statistic picks the best split of a segment, a
// pooled Student t test decides whether it is real (p <= max_p, relative change >=
// min_rel, both sides >= min_segment nights), and both halves are searched again.
// Deterministic (no permutation test). Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <vector>

#include "verdict/verdict_settings.h"

namespace servebench::verdict {

struct ChangePoint {
  size_t index = 0;        // first night of the new level (the first bad build)
  double mean_before = 0;  // over the segment before
  double mean_after = 0;   // over the segment after
  double change_rel = 0;   // (after - before) / before
  double p = 1;            // pooled t test between the two segments
};

// Change points of `x` (oldest first), sorted by index.
std::vector<ChangePoint> FindChangePoints(const std::vector<double>& x,
                                          const VerdictSettings& settings);

}  // namespace servebench::verdict
