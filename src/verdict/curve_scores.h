// Per-curve scores of regression.md §3. A curve is the (interactivity, throughput
// per GPU) points of one configuration across concurrencies; its Pareto frontier
// (metrics/pareto.h, the one frontier) is summarised by throughput at a fixed
// interactivity (monotone cubic Hermite, Steffen's method with the stated end rule)
// and by the mean throughput over a fixed interactivity range (trapezoidal area /
// range width). Pure functions.
#pragma once

#include <optional>
#include <vector>

#include "metrics/pareto.h"

namespace servebench::verdict {

using metrics::CurvePoint;

// Throughput per GPU at interactivity `x` on the frontier; nullopt outside
// [x_min, x_max] (no extrapolation) or for an empty frontier; clamped at >= 0.
std::optional<double> TputAtIntvty(const std::vector<CurvePoint>& frontier, double x);

// Area under the piecewise-linear frontier over [lo, hi] ∩ [x_min, x_max], divided
// by (hi - lo); nullopt when hi <= lo or the frontier has fewer than 2 points.
std::optional<double> ParetoAuc(const std::vector<CurvePoint>& frontier, double lo, double hi);

}  // namespace servebench::verdict
