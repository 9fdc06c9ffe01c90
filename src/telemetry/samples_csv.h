// The raw samples as an audit artifact in InferenceX's gpu_metrics.csv shape
// (nvidia-smi --format=csv: "timestamp, index, power.draw [W], …", local wall time
// with milliseconds, units in the cells, "[N/A]" for a missing reading), so
// InferenceX's aggregate_power.py reads it unchanged. The power column is named
// after the integrated field ("power.draw [W]", "socket_power [W]",
// "DCGM_FI_DEV_POWER_USAGE [W]", ...). Pure function; thread-safe.
#pragma once

#include <string>

#include "common/time_anchor.h"
#include "telemetry/power_sample.h"

namespace servebench::telemetry {

// Header "timestamp, index, uuid, <field> [W], energy [J], temperature.gpu,
// clocks.current.sm [MHz], utilization.gpu [%], memory.used [MiB]", then one row per
// sample in time order. Times are the samples' monotonic stamps through `anchor`.
std::string SamplesToCsv(const SampleSet& set, const TimeAnchor& anchor);

// A monotonic time as nvidia-smi prints it: local "YYYY/MM/DD HH:MM:SS.mmm".
std::string NvidiaSmiTimestamp(int64_t unix_ns);

}  // namespace servebench::telemetry
