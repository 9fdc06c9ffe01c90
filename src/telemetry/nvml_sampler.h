// NVML in-process, through dlopen("libnvidia-ml.so.1") (reference power.md §1.2):
// no link-time dependency, so the binary runs on machines without the driver and
// `auto` moves on when the library is absent. Per GPU per tick:
// nvmlDeviceGetPowerUsage (mW; the averaged reading, = nvidia-smi power.draw) or,
// with PowerReading::kInstant, NVML_FI_DEV_POWER_INSTANT through
// nvmlDeviceGetFieldValues; nvmlDeviceGetTotalEnergyConsumption (mJ) for the counter
// cross-check; temperature, SM clock, utilisation and memory where supported.
// Samples are keyed by UUID and stamped at the midpoint of each GPU's reads.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "telemetry/sampler.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::telemetry {

// Loads `library`, initialises NVML and lists the GPUs. Unavailable when the
// library cannot be loaded, lacks a required symbol, fails to initialise or lists
// no GPU; the GpuSelection errors of gpu_selection.h for unknown ids.
StatusOr<std::unique_ptr<Sampler>> OpenNvml(const std::string& library,
                                            const SourceOptions& options);

}  // namespace servebench::telemetry
