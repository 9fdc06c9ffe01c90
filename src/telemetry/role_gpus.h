// Which sampled GPUs serve which role of a disaggregated point (docs/power.md,
// "Disaggregated points"): the session plan says where each worker runs (its
// /metrics and its GPU indices, SessionWorker); the sampler says which endpoint
// listed each GPU (GpuInfo::endpoint). A GPU is a role's when the endpoint of one of
// that role's workers lists it under an index of that worker's plan. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "telemetry/power_report.h"
#include "telemetry/power_sample.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::telemetry {

// The prefill and decode GPUs (SampleSet keys) of `sampled`, or nullopt with the
// reason in `why` when there is no split to make: no prefill or no decode worker
// ("" then: not disaggregated), a worker's plan GPU that no sampled GPU of its
// endpoint matches, or a sampled GPU that belongs to no worker (the split would not
// add up to the total).
std::optional<RoleGpus> RoleGpusOf(const std::vector<SessionWorker>& workers,
                                   const std::vector<GpuInfo>& sampled, std::string* why);

}  // namespace servebench::telemetry
