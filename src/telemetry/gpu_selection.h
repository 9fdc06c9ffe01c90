// Which GPUs a source measures: --gpu-ids, else the visible-devices variable the
// engine's runtime reads, else every GPU the source lists (reference power.md §1.5:
// the tools themselves ignore CUDA_VISIBLE_DEVICES, so servebench applies it).
// Pure functions; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "telemetry/power_sample.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::telemetry {

struct GpuIdChoice {
  std::vector<std::string> ids;  // empty = every GPU listed
  bool explicit_ids = false;     // from --gpu-ids
  std::string from;              // "--gpu-ids", "CUDA_VISIBLE_DEVICES", ..., or "all listed"
};

using GetEnv = std::function<const char*(const char* name)>;

// NVIDIA local sources read CUDA_VISIBLE_DEVICES; AMD local sources
// ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES, then CUDA_VISIBLE_DEVICES (HIP
// honours it too): in the engine's environment (settings.engine_env) first, then in
// the client's (`get_env`). DCGM and the server's own endpoint take --gpu-ids only: the
// client's environment says nothing about an exporter's node. An empty variable
// counts as unset.
GpuIdChoice ChooseGpuIds(const TelemetrySettings& settings, TelemetrySource source,
                         const GetEnv& get_env);

// The listed GPUs that `options.gpu_ids` names (an index matches GpuInfo::index,
// anything else a UUID, case-insensitively), in the order listed; all of them when
// no ids are given. Fails naming the ids the source does not list and those it does
// (InvalidArgument when the ids were explicit, FailedPrecondition when they came
// from the environment).
StatusOr<std::vector<GpuInfo>> SelectGpus(const std::vector<GpuInfo>& listed,
                                          const SourceOptions& options, const std::string& source);

}  // namespace servebench::telemetry
