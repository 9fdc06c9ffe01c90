// The vendor CLIs as samplers (reference power.md §1.1, §1.4): `nvidia-smi
// --query-gpu=… --format=csv -lms N` and `amd-smi metric -p -c -t -u -w N --csv`,
// one long-lived child each, every printed row a sample. Their timestamps are wall
// clock (nvidia-smi: local time with ms; amd-smi: whole epoch seconds) and are
// converted to the monotonic clock through the run's TimeAnchor.
// amd-smi also gives InferenceX's energy snapshots (`amd-smi metric -E --csv`) at
// open and at stop, for the accumulator cross-check.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "telemetry/sampler.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::telemetry {

// Lists the GPUs with a one-shot query (index, uuid, name, MIG mode, enforced
// limit). Unavailable when `command` is not on PATH, exits non-zero or lists none.
StatusOr<std::unique_ptr<Sampler>> OpenNvidiaSmi(const std::string& command,
                                                 const SourceOptions& options);

// Lists the GPUs with the first energy snapshot. Unavailable as above.
StatusOr<std::unique_ptr<Sampler>> OpenAmdSmi(const std::string& command,
                                              const SourceOptions& options);

}  // namespace servebench::telemetry
