// Monte Carlo of the regression verdict rule (issue 7 "Done when"): seeded
// synthetic histories, 30 nights, 2 % CV per run (1 % of it shared by the night),
// 3 repetitions per night, 5 % step drops injected. Prints the detection rate
// within two nights and the false-alarm rate of noise-only series-nights, plus the
// same figures for harder noise models, so the rule's margins are visible.
//
//   bench_verdict_detection [--series N] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "verdict/synthetic_history.h"

using servebench::verdict::DetectionStudy;
using servebench::verdict::RunDetectionStudy;
using servebench::verdict::SyntheticSpec;
using servebench::verdict::VerdictSettings;

namespace {

void Print(const char* name, const DetectionStudy& st) {
  std::printf(
      "%-52s detection within 2 nights %6.2f %% (%zu/%zu, mean %.2f nights)  "
      "false alarms %5.2f %% of %zu series-nights  false improvements %5.2f %%\n",
      name, 100 * st.DetectionRate(), st.detected_within_two, st.step_series,
      st.mean_nights_to_detect, 100 * st.FalseAlarmRate(), st.judged_series_nights,
      100 * st.FalseImprovementRate());
  std::string rules;
  for (const auto& [rule, n] : st.detection_rules) rules += " " + rule + "=" + std::to_string(n);
  std::printf("    caught by:%s\n", rules.c_str());
  rules.clear();
  for (const auto& [rule, n] : st.false_alarm_rules) rules += " " + rule + "=" + std::to_string(n);
  std::printf("    false alarms by:%s\n", rules.empty() ? " none" : rules.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  size_t series = 2000;
  uint64_t seed = 20261129;
  VerdictSettings settings;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    double v = std::strtod(argv[i + 1], nullptr);
    if (flag == "--series")
      series = static_cast<size_t>(v);
    else if (flag == "--seed")
      seed = static_cast<uint64_t>(v);
    // Rule knobs, to study the trade-off (defaults are VerdictSettings').
    else if (flag == "--baseline-nights")
      settings.baseline_nights = static_cast<size_t>(v);
    else if (flag == "--min-baseline-nights")
      settings.min_baseline_nights = static_cast<size_t>(v);
    else if (flag == "--noise-nights")
      settings.noise_nights = static_cast<size_t>(v);
    else if (flag == "--two-night-k")
      settings.two_night_k = v;
    else if (flag == "--two-night-tonight")
      settings.two_night_tonight_fraction = v;
    else if (flag == "--window-t")
      settings.window_t = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 64;
    }
  }
  SyntheticSpec spec;  // the model: 2 % CV per run, 3 repetitions, -5 % steps
  Print("2% CV/run (1% between nights), 3 reps [issue 7]",
        RunDetectionStudy(seed, series, spec, settings));
  SyntheticSpec single = spec;
  single.repetitions = 1;
  Print("2% CV/run (1% between nights), 1 rep", RunDetectionStudy(seed, series, single, settings));
  SyntheticSpec nightly = spec;
  nightly.between_night_cv = 0.02;  // all of the 2 % is between nights: reps do not help
  Print("2% CV all between nights, 3 reps", RunDetectionStudy(seed, series, nightly, settings));
  return 0;
}
