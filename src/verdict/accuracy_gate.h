// Accuracy verdicts (evals.md §5 gates, self-contained): a task regresses when it
// falls below its floor, or when it is worse than the last good night with a
// paired McNemar test (per-item results on both nights) or, without items, a
// two-proportion test at p < accuracy_max_p and a drop of at least
// accuracy_min_drop. Improvements mirror the test. Pure function.
#pragma once

#include "verdict/history.h"
#include "verdict/nightly_gate.h"
#include "verdict/verdict_settings.h"

namespace servebench::verdict {

// `last_good` is the most recent earlier valid night's result for the same task,
// or nullptr (then only the floor is checked and the outcome is kInsufficient
// unless the floor fails).
MetricVerdict JudgeAccuracy(const AccuracyResult& tonight, const AccuracyResult* last_good,
                            const VerdictSettings& settings);

}  // namespace servebench::verdict
