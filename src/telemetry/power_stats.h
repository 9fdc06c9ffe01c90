// The secondary numbers of a PowerReport, each over the window [0, window_s] in the
// source's seconds (power_report.cc converts): the energy-counter cross-check, the
// peak and time-weighted P90 of power, and the time-weighted context columns
// (clock, temperature, utilisation, memory). Pure functions; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/energy_rule.h"
#include "telemetry/power_sample.h"

namespace servebench::telemetry {

using ToSeconds = std::function<double(int64_t t_ns)>;

struct CounterCheck {
  std::string span;                // "window", "sampler", or "" (no counter)
  std::optional<double> energy_j;  // Σ per-GPU counter delta; null when unsupported or reset
  std::optional<double> rel_err;   // |counter − integral| / counter
  double integral_j = 0;           // what the counter was compared with
  bool reset = false;              // a negative delta somewhere
  std::string detail;              // for the reset warning
  std::optional<AccumulatorCheck> accumulator;  // snapshots only (InferenceX's check)
  std::vector<std::string> notes;
};

// In-stream counters (NVML, amdsmi, DCGM): each GPU's counter interpolated at the
// window edges, compared with the integration's energy. Snapshots (amd-smi `metric
// -E`): InferenceX's accumulator check against the whole stream.
CounterCheck CheckCounters(const SampleSet& set, const std::vector<PowerRow>& rows,
                           const Integration& ix, double window_s, const ToSeconds& to_s);

// Largest power of any GPU in the window, edge values (interpolated) included.
std::optional<double> PeakPower(const std::vector<PowerRow>& rows, double window_s);

// Time-weighted percentile `p` of the summed power of `gpus`: the sum is taken at
// every sample time of any GPU in the window and at both edges (each GPU linearly
// interpolated); each interval between those times weighs its length at the mean of
// its two sums; the result is the smallest such mean whose cumulative weight
// reaches p % of the window.
std::optional<double> TimeWeightedTotalPercentile(const std::vector<PowerRow>& rows,
                                                  const std::vector<std::string>& gpus,
                                                  double window_s, double p);

struct ContextStats {
  std::optional<double> avg_sm_clock_mhz, avg_temp_c, peak_temp_c, avg_util_pct, avg_mem_used_mib;
};
// Per GPU the window mean (trapezoid with interpolated edges) of each column whose
// readings bracket the window, averaged over those GPUs; peak = largest in-window
// reading.
ContextStats ComputeContext(const SampleSet& set, const ToSeconds& to_s, double window_s);

}  // namespace servebench::telemetry
