// InferenceX's energy rule (reference power.md §2.2, §2.4; its
// utils/aggregate_power.py), reimplemented so that a servebench result matches
// aggregate_power.py on the same samples: per GPU, power is linearly interpolated
// at the window edges and integrated with the trapezoid rule over (start, P_start),
// the samples strictly inside, (end, P_end). The codes here are InferenceX's own
// (`sampling_gap_exceeded`, ...); power_report.h maps them onto servebench's
// validity codes and adds its own rules. Pure functions; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace servebench::telemetry {

// One telemetry row as aggregate_power.py sees it: a time in seconds (any fixed
// origin), the GPU id, the power cell (nullopt = N/A or unparseable).
struct PowerRow {
  double t_s = 0;
  std::string gpu;
  std::optional<double> power_w;
};

// aggregate_power.py's PowerIntegration.
struct Integration {
  bool valid = false;
  std::vector<std::string> reasons;  // InferenceX codes, in discovery order
  std::optional<int> expected_gpus;
  std::vector<std::string> observed_gpus;    // numeric ids first (numerically), then others
  std::map<std::string, int> sample_counts;  // distinct timestamps per GPU (whole band)
  std::map<std::string, double> max_gap_s;   // over the bracketing sequence
  std::map<std::string, double> energy_j;    // per GPU over the window
  std::map<std::string, std::vector<std::string>> device_issues;
  std::map<std::string, int> boundary_degenerate_rows;  // N/A or ≤ 0 W rows just outside
  // Set only when every observed GPU integrated.
  std::optional<double> total_energy_j, avg_total_power_w, avg_power_w;
};

inline constexpr double kInferenceXMaxGapS = 3.0;

// Integrates `rows` over [start_s, end_s]. `bad_timestamps` counts rows whose
// timestamp did not parse (each makes the result invalid, as in InferenceX).
// Rows further than `max_gap_s` outside the window are ignored before their power
// is read; readings of one GPU at one timestamp are averaged.
Integration IntegrateWindow(const std::vector<PowerRow>& rows, double start_s, double end_s,
                            std::optional<int> expected_gpus, double max_gap_s = kInferenceXMaxGapS,
                            int bad_timestamps = 0);

// A time series (t, value), sorted by t, that brackets [start, end]: its value
// linearly interpolated at `t` (an exact hit within 1e-9 used as is), and its
// integral over [start, end] by the trapezoid rule with interpolated edges — the
// rule IntegrateWindow applies to power, reused for the context columns.
using TimeSeries = std::vector<std::pair<double, double>>;
double InterpolateAt(const TimeSeries& series, double t);
double WindowIntegral(const TimeSeries& series, double start, double end);

// §2.3 whole-deployment keys from a valid integration; nullopt when any token
// count or `completed` is ≤ 0 (InferenceX's invalid_* denominator codes).
struct EnergyPerWork {
  double joules_per_successful_query = 0;
  double joules_per_input_token = 0;
  double joules_per_output_token = 0;
  double joules_per_total_token = 0;
};
std::optional<EnergyPerWork> DivideEnergy(double energy_j, int64_t completed, int64_t input_tokens,
                                          int64_t output_tokens);

// InferenceX's rounding of a §2.3 key: 3 decimals for keys ending _w or _j, else 6.
double RoundLikeInferenceX(const std::string& key, double value);

// The advisory accumulator cross-check (§2.4): for GPUs in both snapshots,
// Σ(end − start) counter against the trapezoid of each such GPU's whole stream (no
// clipping). Never changes validity.
struct AccumulatorCheck {
  bool available = false;
  std::string reason;  // when !available
  double accumulator_delta_j = 0;
  double integrated_stream_j = 0;
  std::optional<double> relative_error;  // null when the delta is 0
  bool within_tolerance = false;
  double tolerance = 0.05;
  std::map<std::string, double> per_gpu_delta_j;
  std::vector<std::string> integrated_gpus, unmatched_gpus, negative_delta_gpus;
  double stream_span_s = 0;
};
AccumulatorCheck CrossCheckAccumulator(const std::map<std::string, double>& start_j,
                                       const std::map<std::string, double>& end_j,
                                       const std::vector<PowerRow>& stream);

}  // namespace servebench::telemetry
