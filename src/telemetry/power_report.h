// The power of one load run: servebench's keys and validity codes (reference
// power.md §3) computed from a SampleSet over the metrics.md §4 window. The energy
// itself is InferenceX's rule exactly (energy_rule.h); this file adds the GPU-set
// checks, the window and sample-count rules, the counter cross-check, the derived
// per-token keys and the disaggregated role split. docs/power.md is the user's
// description. Pure computation; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/time_anchor.h"
#include "metrics/validity.h"
#include "telemetry/energy_rule.h"
#include "telemetry/power_sample.h"

namespace servebench::telemetry {

// The measured window on the client's monotonic clock: the start of the main
// phase's schedule to the last t_done of any request (metrics.md §4).
struct PowerWindow {
  int64_t start_ns = 0, end_ns = 0;
  // The RunSummary's `duration` in the source's seconds (wall / time_scale), for
  // the power_clock_mismatch check.
  double duration_s = 0;
};

// Successful work in the window (metrics.md §3–§4): `completed`, Σprompt_tokens, Σn.
struct WorkCounts {
  int64_t completed = 0, input_tokens = 0, output_tokens = 0;
};

// Which GPUs (SampleSet keys) serve which role of a disaggregated point. Filled by
// the topology once it knows (issue #16); absent = not disaggregated, no split.
struct RoleGpus {
  std::vector<std::string> prefill, decode;
};

struct PowerInputs {
  const SampleSet* samples = nullptr;  // null: no source could be started
  std::string unavailable_note;        // why, when samples is null
  TimeAnchor anchor;                   // for the *_unix keys
  PowerWindow window;
  WorkCounts work;
  int expected_gpus = 0;  // §4 count (tp × pp × pcp, or P + D); 0 = unknown
  std::optional<RoleGpus> roles;
  std::optional<double> idle_power_w;  // per GPU, measured once per session (idle_power.h)
};

// Thresholds of the §3.2 rules (docs/power.md says why each has its value).
inline constexpr double kGapLimitPeriods = 3.0;        // gap > 3 periods (3.0 s at 1 Hz)
inline constexpr double kMinSamplesPerPeriod = 0.5;    // ⌈0.5 × window / period⌉ samples
inline constexpr double kMinWindowSensorPeriods = 10;  // window ≥ 10 × max(sensor, period)
inline constexpr double kCounterTolerance = 0.05;      // |counter − integral| / counter

struct PowerReport {
  metrics::Validity validity;  // errors make power invalid; warnings do not
  bool valid() const { return validity.valid(); }
  SourceInfo source;
  std::optional<double> window_start_unix, window_end_unix;
  double window_s = 0;
  int gpu_count_expected = 0, gpu_count_observed = 0;
  std::vector<std::string> gpu_uuids;  // sorted keys of GPUs with samples
  std::optional<int> samples_min;      // smallest per-GPU in-window sample count
  std::optional<double> max_gap_s;     // largest bracketing-sequence gap
  Integration integration;             // InferenceX's per-GPU detail
  // ---- Measured; set only when valid (invalid power nulls them) ----
  std::optional<double> total_gpu_energy_j, avg_total_gpu_power_w, avg_power_w;
  std::optional<double> peak_power_w, p90_total_gpu_power_w;
  std::optional<EnergyPerWork> per_work;
  std::optional<double> output_tokens_per_joule, total_tokens_per_joule;
  std::optional<double> prefill_gpu_energy_j, decode_gpu_energy_j, prefill_avg_power_w,
      decode_avg_power_w, prefill_joules_per_input_token, decode_joules_per_output_token;
  // ---- Context; reported whatever the validity ----
  std::optional<double> energy_counter_j, energy_counter_rel_err;
  std::string energy_counter_span;  // "window" (in-stream counters) or "sampler" (snapshots)
  std::optional<AccumulatorCheck> accumulator_check;
  std::optional<double> idle_power_w, power_limit_w;
  std::optional<double> avg_sm_clock_mhz, avg_temp_c, peak_temp_c, avg_util_pct, avg_mem_used_mib;
  std::vector<std::string> notes;
};

PowerReport ComputePowerReport(const PowerInputs& inputs);

// `servebench.power` of the bench result: every §3.1 key (null when not measured),
// the reason and warning codes, per-GPU detail and notes.
boost::json::object PowerReportJson(const PowerReport& report);

// InferenceX's §2.3 keys as its aggregator writes them (power_metric_schema_version
// 2, integer power_valid, the seven metric keys only when valid, its rounding),
// added to `out`.
void AddInferenceXPowerKeys(const PowerReport& report, boost::json::object* out);

// One line for the terminal: "power: 540.0 W (2 GPUs), 5400.0 J, 2.700 J/output token"
// or "power: invalid (power_gap_exceeded: ...)".
std::string FormatPowerLine(const PowerReport& report);

}  // namespace servebench::telemetry
