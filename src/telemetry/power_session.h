// PowerSession: the sampler's life around one measured window (reference power.md
// §3.1): opened and started before the window, at least kLeadPeriods periods and a
// sample of every GPU before it begins; stopped after every GPU has sampled past
// its end and at least kTailPeriods periods have passed. Also measures idle power
// (engine loaded, no traffic) the same way. Used by the load generator (client/)
// and the sweep (run/). One owner thread; not thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "telemetry/telemetry.h"

namespace servebench::telemetry {

inline constexpr double kLeadPeriods = 2;
inline constexpr double kTailPeriods = 2;
// How long a source may take to print its first row (nvidia-smi initialises the
// driver first) before the window opens anyway, noted; bracketing then fails.
inline constexpr double kFirstSampleTimeoutS = 15;

class PowerSession {
 public:
  // Opens the source (telemetry.h OpenSampler; its errors are bad input). No
  // sampler (none, or auto found nothing) is not an error: the session is inactive
  // and the report says power_source_unavailable.
  static StatusOr<std::unique_ptr<PowerSession>> Open(const TelemetrySettings& settings,
                                                      const TimeAnchor& anchor,
                                                      const HttpGet& http_get);
  ~PowerSession();

  bool active() const { return sampler_ != nullptr; }
  const std::string& unavailable() const { return unavailable_; }
  // Wall seconds per source period (period × time scale).
  double period_wall_s() const;

  // Starts sampling and returns once the window may open. An error (the stream
  // could not start) leaves the session inactive, with the reason noted.
  void Begin(const std::atomic<bool>* cancel);
  // Waits past `window_end_ns` as described above, stops, returns the samples.
  // Inactive sessions return nullopt.
  std::optional<SampleSet> End(int64_t window_end_ns, const std::atomic<bool>* cancel);

  const std::vector<std::string>& notes() const { return notes_; }

 private:
  PowerSession() = default;
  std::unique_ptr<Sampler> sampler_;
  std::string unavailable_;
  std::vector<std::string> notes_;
};

// Idle power: samples `duration_s` (≥ 10 s unless a test or the demo says less)
// with no traffic and returns the per-GPU mean over that window (InferenceX's
// integration); nullopt with the reason in `why` when power could not be measured.
struct IdlePower {
  std::optional<double> per_gpu_w;
  double window_s = 0;
  std::string why;  // when per_gpu_w is null
  std::string source;
};
IdlePower MeasureIdlePower(const TelemetrySettings& settings, const HttpGet& http_get,
                           double duration_s, const std::atomic<bool>* cancel);

}  // namespace servebench::telemetry
