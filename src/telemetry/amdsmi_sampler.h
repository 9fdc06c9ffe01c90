// amdsmi in-process, through dlopen("libamd_smi.so") (reference power.md §1.4): no
// link-time dependency. Per GPU per tick: amdsmi_get_power_info (socket_power,
// else current_socket_power, else average_socket_power; integer W) and
// amdsmi_get_energy_count (ticks × resolution µJ) for the counter cross-check;
// gfx activity where supported. Samples are keyed by UUID when the library gives
// one, else by the processor's order (amd-smi's index).
// ABI: amdsmi_power_info_t is read in its ROCm 6.2-and-later layout (u64
// socket_power, u32 current, u32 average, ...); older layouts are not supported
// and a reading outside 0–10 kW is treated as N/A (docs/power.md).
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "telemetry/sampler.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::telemetry {

StatusOr<std::unique_ptr<Sampler>> OpenAmdsmi(const std::string& library,
                                              const SourceOptions& options);

}  // namespace servebench::telemetry
