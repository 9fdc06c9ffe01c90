// Seeded synthetic nightly histories and the Monte Carlo study that measures the
// verdict rule on them (issue 7 "Done when"): how often a 5 % step is caught within
// two nights, and how often pure noise raises an alarm. Used by verdict_test and
// bench/verdict. Deterministic for a seed (own Gaussian generator, so the numbers
// do not depend on the standard library's distributions).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>

#include "verdict/history.h"
#include "verdict/verdict_settings.h"

namespace servebench::verdict {

// The noise model. Each night runs `repetitions` benchmark repetitions; a run's
// value is mean x (1 + night + run) with night ~ N(0, between_night_cv) shared by
// the night's runs (node, thermals, caches) and run ~ N(0, sqrt(run_cv^2 -
// between_night_cv^2)), so a single run has coefficient of variation run_cv. The
// night's value is the median of its runs (Stage 0). Metrics: throughput (total
// and output per GPU), median TPOT (= inverse of output throughput, the same
// noise), and median TTFT (independent noise with the same CV).
struct SyntheticSpec {
  size_t nights = 30;
  double run_cv = 0.02;
  double between_night_cv = 0.01;
  size_t repetitions = 3;
  // A step in speed from this night on (throughput x (1 + step_rel), TPOT / (1 +
  // step_rel)); nullopt for a noise-only series.
  std::optional<size_t> step_night;
  double step_rel = -0.05;
};

// One synthetic series; dates run 2026-01-01, 2026-01-02, ...
SeriesHistory MakeSyntheticSeries(const SyntheticSpec& spec, const std::string& series_id,
                                  std::mt19937_64& rng);

// "2026-01-01" + `night` days.
std::string SyntheticDate(size_t night);

struct DetectionStudy {
  size_t step_series = 0;
  size_t detected_within_two = 0;    // regression on the step night or the next
  double mean_nights_to_detect = 0;  // 1 = the step night itself
  size_t noise_series = 0;
  size_t judged_series_nights = 0;  // noise-only nights with a judged verdict
  size_t false_regressions = 0;
  size_t false_improvements = 0;
  // Which metric and rule (ConfirmationName) raised each false alarm / caught each step.
  std::map<std::string, size_t> false_alarm_rules;
  std::map<std::string, size_t> detection_rules;
  double DetectionRate() const;
  double FalseAlarmRate() const;  // false regressions / judged series-nights
  double FalseImprovementRate() const;
};

// `series` step series (step night uniform in [12, nights - 2]) and `series`
// noise-only series, each judged on every night.
DetectionStudy RunDetectionStudy(uint64_t seed, size_t series, const SyntheticSpec& spec,
                                 const VerdictSettings& settings);

}  // namespace servebench::verdict
