// The GPU power flags, defined once for `bench` and `run`/`nightly` (docs/power.md):
// --gpu-telemetry, --gpu-ids, --power-sample-period, --power-reading, --dcgm-url,
// --require-power, --idle-power-s, --nvml-library, --amdsmi-library.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::cli {

struct PowerFlags {
  std::string gpu_telemetry = "auto", power_reading = "average";
  std::vector<std::string> gpu_ids, dcgm_urls;
  telemetry::TelemetrySettings settings;
  double idle_power_s = 0;
};

// Registers the flags on `app`; `idle_default_s` is the --idle-power-s default (bench
// 0: not measured; run 10: once per serve session).
void AddPowerFlags(CLI::App& app, PowerFlags* flags, double idle_default_s);

// The parsed flags as settings; InvalidArgument naming the flag on a bad value.
StatusOr<telemetry::TelemetrySettings> ResolvePowerFlags(const PowerFlags& flags);

}  // namespace servebench::cli
