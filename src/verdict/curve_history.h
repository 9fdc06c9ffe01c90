// Turns point series into curve series (regression.md §3): the series that share a
// curve_id (same configuration, different concurrency) become one SeriesHistory
// whose nightly metrics are the curve scores tput_at_intvty(x*) and pareto_auc,
// judged like any single point. Pure function.
#pragma once

#include <vector>

#include "verdict/history.h"
#include "verdict/verdict_settings.h"

namespace servebench::verdict {

// One curve history per curve_id with at least two member series. A night with
// fewer than two valid points is an invalid night of the curve. The AUC range is
// fixed per curve: the 80th percentile over its nights of the frontier's x_min and
// the 20th percentile of its x_max.
std::vector<SeriesHistory> BuildCurveHistories(const std::vector<SeriesHistory>& points,
                                               const VerdictSettings& settings);

}  // namespace servebench::verdict
