// Stage 1 of regression.md §2: the nightly gate for one metric of one series.
// Baseline from the recent valid nights of the current segment, noise measured from
// residuals, a flag at max(delta_min, k * noise), and confirmation before alarm
// (same-night rerun, persistence, two-night mean, or the window t test).
// Pure function of its inputs; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "verdict/metric_catalogue.h"
#include "verdict/verdict_settings.h"

namespace servebench::verdict {

enum class MetricOutcome {
  kRegression,    // confirmed worse
  kImprovement,   // confirmed better
  kUnchanged,     // within noise (or flagged once and not confirmed: `suspect`)
  kInsufficient,  // too little history to judge: never green
};
std::string_view MetricOutcomeName(MetricOutcome outcome);

// Which rule confirmed a regression or an improvement: what code acts on (the
// report's `rule` text says the same for people, with the numbers).
enum class Confirmation {
  kNone,           // not confirmed: unchanged, suspect or too little history
  kRerun,          // same-night rerun, min(MWU, KS) of the raw runs (multiple-tested, judge.h)
  kPersistence,    // flagged on enough nights of the window
  kTwoNight,       // the mean of tonight and last night
  kWindow,         // the window t test
  kFloor,          // accuracy below its absolute floor: a gate, not a comparison
  kPairedTest,     // accuracy: McNemar on per-item results
  kTwoProportion,  // accuracy: two-proportion test
};
// "none", "rerun", "persistence", "two-night", "window", "floor", "mcnemar",
// "two-proportion".
std::string_view ConfirmationName(Confirmation confirmation);

struct MetricVerdict {
  std::string metric;
  bool counted = true;
  MetricOutcome outcome = MetricOutcome::kInsufficient;
  Confirmation confirmed_by = Confirmation::kNone;
  bool suspect = false;      // flagged tonight but not (yet) confirmed
  double value = 0;          // tonight
  double baseline = 0;       // B
  double change_rel = 0;     // (value - B) / B, raw sign
  double worse_rel = 0;      // change signed so that negative is worse
  double noise_rel = 0;      // sigma_rel
  double threshold_rel = 0;  // max(delta_min, k * sigma_rel)
  size_t baseline_nights = 0;
  double p_value = -1;  // the confirming test's p, when one ran
  // For a regression/improvement: how many nights before tonight the move began
  // (0 = tonight): the earliest window night from which every night is beyond half
  // the threshold. judge.cc turns it into the first bad build.
  size_t first_moved_nights_ago = 0;
  std::string rule;  // which rule decided, for the report
};

// The nights one metric is judged on: the valid nights of the current segment,
// oldest first, tonight last. raw_runs[i] are night i's repetitions (may be empty).
struct MetricSeries {
  std::vector<double> values;
  std::vector<std::vector<double>> raw_runs;
};

// Judges tonight (the last value). `values` must not be empty.
MetricVerdict GateMetric(const MetricSpec& spec, const MetricSeries& series,
                         const VerdictSettings& settings);

}  // namespace servebench::verdict
