// TelemetrySettings: how GPU power is measured around a load run (`servebench
// bench` / `run` flags --gpu-telemetry, --gpu-ids, --power-sample-period,
// --power-reading, --dcgm-url, --require-power; docs/power.md). SourceOptions is
// what one source is opened with, derived from them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/time_anchor.h"

namespace servebench::telemetry {

enum class TelemetrySource { kAuto, kNvml, kNvidiaSmi, kAmdsmi, kAmdSmi, kDcgm, kNone };
// The flag value: "auto", "nvml", "nvidia-smi", "amdsmi", "amd-smi", "dcgm", "none".
std::string_view TelemetrySourceName(TelemetrySource source);
StatusOr<TelemetrySource> ParseTelemetrySource(std::string_view name);

// Which NVIDIA reading is integrated. kAverage is what InferenceX integrates
// (power.draw, nvmlDeviceGetPowerUsage, DCGM_FI_DEV_POWER_USAGE: a 1 s trailing mean
// on Ampere-and-newer parts except A100); kInstant the instantaneous board power
// (power.draw.instant, NVML_FI_DEV_POWER_INSTANT, DCGM_FI_DEV_POWER_USAGE_INSTANT),
// which allows shorter windows (power_window_too_short). AMD sources read
// socket_power either way.
enum class PowerReading { kAverage, kInstant };
std::string_view PowerReadingName(PowerReading reading);
StatusOr<PowerReading> ParsePowerReading(std::string_view name);

// One worker of a serve session of several processes (engine/session_plan.h) as its
// plan places it: its role, the /metrics it serves, the GPU indices it runs on.
struct SessionWorker {
  std::string role;         // "prefill", "decode", "aggregated"
  std::string metrics_url;  // http://host:port/metrics
  std::vector<int> gpus;    // GPU indices on its node (its CUDA_VISIBLE_DEVICES)
};

struct TelemetrySettings {
  // ---- Source ----
  // kAuto: the first that works of the server's own DCGM-shaped /metrics (the
  // simulated engine serves one), NVML, nvidia-smi, amdsmi, amd-smi, the DCGM
  // exporter URLs; none with a note when nothing answers. An explicitly named
  // source that cannot be opened is an error before the load starts.
  TelemetrySource source = TelemetrySource::kAuto;
  // GPUs to measure: NVML/amd-smi indices or UUIDs. Empty: CUDA_VISIBLE_DEVICES for
  // NVIDIA sources, ROCR_VISIBLE_DEVICES then HIP_VISIBLE_DEVICES for AMD ones (local
  // sources only), else every GPU the source lists.
  std::vector<std::string> gpu_ids;
  // The engine's own environment (a recipe's serve.env): its CUDA_VISIBLE_DEVICES /
  // ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES name the GPUs it runs on and are
  // consulted before the client's (local sources, when gpu_ids is empty).
  std::map<std::string, std::string> engine_env;
  // Seconds between samples (InferenceX samples at 1 s). amd-smi's watch interval is
  // whole seconds, so it rounds up. With the simulated engine, simulated seconds.
  double sample_period_s = 1.0;
  PowerReading reading = PowerReading::kAverage;
  // dcgm-exporter endpoints (`dcgm`, and the last resort of `auto`).
  std::vector<std::string> dcgm_urls = {"http://localhost:9400/metrics",
                                        "http://localhost:9401/metrics"};
  // The server's Prometheus endpoint, tried first by `auto` (set by bench from
  // --base-url / --metrics-url; empty = not tried).
  std::string server_metrics_url;
  // A serve session's workers (empty for a single server). `auto` reads their
  // /metrics together, as one DCGM-shaped source, right after the server's own
  // endpoint: each simulated worker exports the GPUs it plays (docs/power.md,
  // "Disaggregated points"). Their roles and GPUs split the energy (role_gpus.h).
  std::vector<SessionWorker> session_workers;
  // ---- Judgement ----
  // Invalid power makes the run invalid (metrics.md §8 code power_invalid); also
  // REQUIRE_POWER=1|true|yes in the environment, as InferenceX.
  bool require_power = false;
  // ---- Where the vendor pieces are (tests point them at stand-ins) ----
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string amdsmi_library = "libamd_smi.so";
  std::string nvidia_smi = "nvidia-smi";
  std::string amd_smi = "amd-smi";
};

// Fails on a period outside [0.01, 60] s, an empty or malformed id, an empty URL.
Status Validate(const TelemetrySettings& settings);

// What one source is opened with.
struct SourceOptions {
  std::vector<std::string> gpu_ids;  // empty = every GPU listed
  bool gpu_ids_explicit = false;     // from --gpu-ids (an unknown one is an error)
  double period_s = 1.0;
  PowerReading reading = PowerReading::kAverage;
  TimeAnchor anchor;  // converts CLI wall-clock stamps to the monotonic clock
};

}  // namespace servebench::telemetry
