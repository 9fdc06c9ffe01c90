// Prometheus text exposition parsing and speculative-decoding acceptance from
// counter deltas (metrics.md §7, engines.md §5). Pure functions; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace servebench::metrics {

// One sample line: `name{label="v",...} value [timestamp]`.
struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// Parses the text format (version 0.0.4). Comments (# HELP, # TYPE) and blank lines
// are skipped. Fails with the line number on a line that is not a sample; NaN and
// ±Inf values are accepted as Prometheus writes them.
StatusOr<std::vector<PromSample>> ParsePrometheusText(std::string_view text);

// The speculative-decoding counters, each summed over every label set (DP ranks,
// engines, models). Per-position counters are keyed by their `position` label.
struct SpecCounters {
  bool present = false;  // at least the drafts counter was exposed
  double num_drafts = 0;
  double num_draft_tokens = 0;
  double num_accepted_tokens = 0;
  std::map<int, double> accepted_per_position;
};

// Reads the counters with prefix "vllm:" or, when absent, "llamacpp:".
SpecCounters ExtractSpecCounters(const std::vector<PromSample>& samples);

// Acceptance over a run from before/after scrapes (metrics.md §7).
struct SpecAcceptance {
  double delta_drafts = 0;
  double delta_draft_tokens = 0;
  double delta_accepted = 0;
  std::vector<double> delta_accepted_per_position;  // index = position
  // Defined only when Δdrafts > 0 and Δdraft_tokens > 0.
  std::optional<double> acceptance_length;  // 1 + Δaccepted / Δdrafts
  std::optional<double> acceptance_rate;    // Δaccepted / Δdraft_tokens (0–1)
  std::vector<double> per_position;         // Δaccepted_pos_k / Δdrafts
};
SpecAcceptance ComputeSpecAcceptance(const SpecCounters& before, const SpecCounters& after);

// The simulated engine's schedule lateness (vllm:sim_step_lag_seconds, a histogram
// of simulated seconds per step; sim/engine.h). Bucket counts are cumulative, keyed
// by their upper bound (+Inf last), summed over label sets.
struct LagHistogramCounts {
  bool present = false;
  std::map<double, double> buckets;  // le -> cumulative steps
};
LagHistogramCounts ExtractServerLag(const std::vector<PromSample>& samples);

// The server's lateness over a run from before/after scrapes (docs/metrics.md,
// "Validity": server_lagged).
struct ServerLag {
  double steps = 0;  // steps the server ran in the run
  // Percentile 99 of the steps' lateness, simulated ms, interpolated linearly
  // inside its bucket (as Prometheus' histogram_quantile); the largest finite bound
  // when it falls in the +Inf bucket.
  double p99_ms = 0;
  // How many steps were late by more than 1 ms (simulated).
  double steps_late_1ms = 0;
};
// nullopt when the histogram is absent from either scrape or no step ran.
std::optional<ServerLag> ComputeServerLag(const LagHistogramCounts& before,
                                          const LagHistogramCounts& after);

}  // namespace servebench::metrics
