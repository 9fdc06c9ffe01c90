// telemetry/: GPU power around a load run (reference power.md; docs/power.md).
//
//   OpenedSampler s = OpenSampler(settings, anchor, http_get);   // before the load
//   s.sampler->Start(); ... wait for samples before the window ...
//   ... the load run ...
//   SampleSet set = s.sampler->Stop();                           // after the window
//   PowerReport r = ComputePowerReport({&set, ...});             // power_report.h
//
// OpenSampler resolves `auto` (the first source that opens), the GPU set
// (gpu_selection.h) and opens the source; it starts nothing. Thread-safe (no shared
// state); the Sampler it returns has its own contract (sampler.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/time_anchor.h"
#include "telemetry/dcgm_sampler.h"
#include "telemetry/gpu_selection.h"
#include "telemetry/power_report.h"
#include "telemetry/sampler.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::telemetry {

struct OpenedSampler {
  std::unique_ptr<Sampler> sampler;  // null: none (--gpu-telemetry none, or auto found nothing)
  std::string unavailable;           // why there is none, for power_source_unavailable
  std::vector<std::string> notes;    // what auto tried, where the GPU ids came from
};

// Opens the configured source. An explicitly named source that cannot be opened,
// and an explicit --gpu-ids the source does not list, are errors (bad input: the
// caller stops before the load); `auto` that finds nothing returns no sampler and
// the reasons. `get_env` defaults to std::getenv.
StatusOr<OpenedSampler> OpenSampler(const TelemetrySettings& settings, const TimeAnchor& anchor,
                                    const HttpGet& http_get, const GetEnv& get_env = nullptr);

// Opens a named local source (nvml, nvidia-smi, amdsmi, amd-smi) once and drops it,
// so a sweep refuses a source this machine lacks before it starts an engine; the
// error is OpenSampler's. Ok for auto and none, and for dcgm (its URL may be the
// engine's own endpoint, not up yet).
Status CheckLocalSourceOpens(const TelemetrySettings& settings, const GetEnv& get_env = nullptr);

// True when REQUIRE_POWER in the environment says 1, true or yes (InferenceX's switch).
bool RequirePowerFromEnv(const GetEnv& get_env = nullptr);

}  // namespace servebench::telemetry
