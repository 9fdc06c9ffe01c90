// The data every GPU telemetry source produces: one PowerSample per GPU per tick,
// stamped on the client's CLOCK_MONOTONIC, plus what the source said about itself
// and its GPUs. Samplers (sampler.h) fill a SampleSet; the energy rule
// (power_report.h) reads it. Plain values; thread-safe to copy.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace servebench::telemetry {

// One reading of one GPU.
struct PowerSample {
  int64_t t_ns = 0;  // client CLOCK_MONOTONIC (CLI sources: converted through the TimeAnchor)
  std::string gpu;   // the GPU's key: its UUID when the source gives one, else its index
  // Board power in W; nullopt when the cell was N/A, [Not Supported] or unparseable.
  std::optional<double> power_w;
  // The source's cumulative energy counter in J (NVML mJ / 1000, DCGM mJ / 1000,
  // amdsmi ticks × resolution µJ / 10⁶); nullopt when the source has none.
  std::optional<double> energy_j;
  // Context columns, time-weighted over the window in the report when present.
  std::optional<double> temp_c, sm_clock_mhz, util_pct, mem_used_mib;
};

// What the source listed about one GPU when it was opened.
struct GpuInfo {
  std::string key;   // as in PowerSample::gpu
  int index = -1;    // the vendor's index (NVML / amd-smi order); -1 unknown
  std::string uuid;  // "" when the source has none (amd-smi watch stream)
  std::string name;  // product name when known
  std::optional<bool> mig_enabled;
  std::optional<double> power_limit_w;  // enforced limit
  // The /metrics URL that lists it (DCGM-shaped sources; "" for local ones): with a
  // serve session's workers read together, which worker's GPU it is (role_gpus.h).
  std::string endpoint;
};

// Which reading was integrated, from where.
struct SourceInfo {
  std::string source;  // "nvml", "nvidia-smi", "amdsmi", "amd-smi", "dcgm"
  std::string field;   // "nvmlDeviceGetPowerUsage", "power.draw", "DCGM_FI_DEV_POWER_USAGE", ...
  // The sensor's own averaging period: 1.0 for NVIDIA's averaged readings, 0 for
  // instantaneous ones, nullopt when the vendor does not say (AMD).
  std::optional<double> sensor_avg_s;
  double period_s = 1.0;  // the sampler's period, in the source's seconds (see time_scale)
  // Wall seconds per second of the source's clock: 1 for hardware; the simulated
  // engine's --time-scale for its GPUs, whose watts are simulated watts.
  double time_scale = 1.0;
  std::string where;  // the command, library or URL, for people
};

// A counter reading taken apart from the stream (amd-smi `metric -E` snapshots).
struct CounterSnapshot {
  int64_t t_ns = 0;
  std::map<std::string, double> energy_j;  // per GPU key; GPUs reading N/A are absent
};

// Everything one sampler produced over its life.
struct SampleSet {
  SourceInfo info;
  std::vector<GpuInfo> gpus;  // the GPUs sampled (after --gpu-ids)
  std::vector<PowerSample> samples;
  int64_t bad_timestamps = 0;  // rows whose timestamp did not parse (position unknown)
  std::optional<CounterSnapshot> counter_start, counter_end;
  std::vector<std::string> notes;  // what people should know (stream ended early, ...)
};

}  // namespace servebench::telemetry
