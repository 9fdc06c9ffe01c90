// StopMonitor: the stop rules of a measured phase (StopRuleSettings, docs/bench.md
// "Stop rules") judged from the live counters the workers keep (load_worker.h
// Progress). The coordinator feeds it a sample every few milliseconds; the first rule
// that fires is returned once, with the reason in words. Pure (no clock, no threads):
// the caller supplies the times.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/client_settings.h"

namespace servebench::client {

// Cumulative counters of the phase at one time (monotonic ns).
struct StopSample {
  int64_t t_ns = 0;
  int64_t done = 0, failed = 0;
  int64_t ttft_count = 0, ttft_sum_ns = 0;  // completed requests: schedule → first token
};

struct StopDecision {
  std::string rule;    // "error_rate" or "saturation" (servebench.run.ended_by)
  std::string reason;  // what was seen, in words (servebench.run.stop_reason)
};

class StopMonitor {
 public:
  // `clock_scale`: wall seconds per second of the run's clock (BenchSettings::
  // time_scale against a compressed sim; 1 otherwise): saturation windows are
  // saturation_window_s of the run's clock, and times in reasons are in it too.
  StopMonitor(const StopRuleSettings& rules, double clock_scale, int64_t start_ns);

  // The rule that fired at this sample, once; nullopt before and after.
  std::optional<StopDecision> Observe(const StopSample& sample);

  // Mean schedule → first token (ms, run's clock) of each closed window so far.
  const std::vector<double>& window_means_ms() const { return means_ms_; }

 private:
  StopRuleSettings rules_;
  double scale_;
  int64_t window_ns_;
  int64_t window_start_ns_;
  StopSample at_window_start_;
  std::vector<double> means_ms_;
  bool fired_ = false;
};

}  // namespace servebench::client
