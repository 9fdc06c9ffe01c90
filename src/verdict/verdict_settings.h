// Every knob of the regression verdicts, with the value regression.md gives it and
// why. `servebench regress` uses the defaults; tests and the Monte Carlo bench
// change them to study the rule.
#pragma once

#include <cstddef>

namespace servebench::verdict {

struct VerdictSettings {
  // ---- Stage 1: baseline and noise (regression.md §2) ----
  // Baseline = median of the last K valid nights of the current segment, taken
  // before the judged window so a fresh step does not leak into its own baseline.
  // regression.md says K = 7; the Monte Carlo (bench/verdict) measured that the
  // 7-night median's own error costs ~1.5 points of detection, so 14.
  size_t baseline_nights = 14;
  // Fewer baseline nights than this: nothing to compare ("new", never green).
  size_t min_baseline_nights = 4;
  // Noise: the scale of residuals around a rolling median of this odd width
  // (robust_stats.h ResidualNoiseScale: consistent for Gaussian noise) ...
  size_t noise_rolling_width = 5;
  // ... over this many nights before the judged window (regression.md: 14; 28
  // halves the threshold's night-to-night jitter where history allows).
  size_t noise_nights = 28;
  // Noise floor: a perfectly quiet history still needs a 0.5 % move.
  double noise_floor_rel = 0.005;

  // ---- Stage 1: flag and confirm ----
  // Nights in the judged window: tonight and the two before (persistence "2 of 3").
  size_t window_nights = 3;
  // Flag when the worsening exceeds max(delta_min, k * noise); k per metric class
  // lives in the metric catalogue (3, or 4 for p99 metrics).
  // Persistence confirmation: flagged tonight and on this many of the window nights.
  size_t persistence_flags = 2;
  // Two-night confirmation: the mean change of tonight and last night exceeds
  // max(delta_min, two_night_k * noise / sqrt(2)), and tonight alone exceeds
  // two_night_tonight_fraction * delta_min. This is what catches a 5 % step on the
  // second night when nightly noise is ~1.5 % (a single-night 3-sigma gate misses
  // about a third of them).
  // 2.3 puts the measured false-alarm rate at ~1.5 % per series-night and the
  // 5 %-step detection at ~97 % (bench_verdict_detection).
  double two_night_k = 2.3;
  double two_night_tonight_fraction = 0.5;
  // Window test: t of the last window_nights vs the window_compare_nights before
  // them (pooled variance, see nightly_gate.cc); t beyond window_t and a mean
  // change of at least max(window_min_rel, window_min_fraction * delta_min), so
  // latency metrics (delta_min 5 %) need 4 %, throughput 2 %.
  size_t window_compare_nights = 10;
  // regression.md says t > 3 (Welch); 4 with pooled variance fired on 0.03 % of
  // quiet nights instead of 0.2 % while every step it caught was caught anyway.
  double window_t = 4.0;
  double window_min_rel = 0.02;
  double window_min_fraction = 0.8;
  // Raw-run confirmation (a same-night rerun): with at least this many raw runs
  // tonight, p = min(MWU, KS) against the raw runs of the last 3 baseline nights.
  size_t rerun_min_runs = 8;
  double rerun_p_regression = 0.01;  // p <= this: confirmed
  double rerun_p_noise = 0.2;        // p > this: noise (unchanged)
  // Benjamini-Hochberg false-discovery rate over the night's rerun p-values.
  double fdr_q = 0.05;

  // ---- Stage 2: change points (Otava-style E-divisive + t test) ----
  size_t change_point_history_nights = 60;
  double change_point_max_p = 0.001;
  double change_point_min_rel = 0.02;
  size_t change_point_min_segment = 3;
  // Change points whose first bad night is this recent are shown in the report.
  size_t change_point_report_nights = 7;

  // ---- Coverage ----
  // A series that reported on any of the previous N nights (of the data set) and
  // not tonight is missing, even when no expected list is given.
  size_t missing_lookback_nights = 7;

  // ---- Stage 0 ----
  // Refuse (invalid) ok records without build.image and build.commit. Off by
  // default so plain `servebench run` records can be compared; nightly sets both.
  bool require_build_identity = false;

  // ---- Accuracy (evals.md §5) ----
  double accuracy_max_p = 0.01;      // paired/binomial test, worse and p below: regression
  double accuracy_min_drop = 0.005;  // ... and a drop of at least half a point

  // ---- Curves (regression.md §3) ----
  // Interactivity targets (tok/s/user) for tput_at_intvty.
  double intvty_targets[4] = {20, 35, 50, 100};
};

}  // namespace servebench::verdict
