// Arrival schedules, generated before the run as absolute offsets from the start of
// the measured phase (an open-loop test must not let the client's own progress move
// arrivals: coordinated omission). Pure functions; deterministic for a seed.
#pragma once

#include <cstdint>
#include <vector>

#include "client/client_settings.h"

namespace servebench::client {

// Offsets (ns) of `n` arrivals at `rate_per_s`. The first arrival is at 0; gaps are
// gamma(shape = burstiness, mean = 1/rate) (burstiness 1 = Poisson) or exactly
// 1/rate for kConstant. rate_per_s ≤ 0 (infinite) gives n zeros.
std::vector<int64_t> MakeArrivalSchedule(int64_t n, double rate_per_s, double burstiness,
                                         ArrivalProcess process, uint64_t seed);

// Offsets of `n` arrivals whose rate ramps from start_rps to end_rps (both > 0) by
// request index, as vLLM's --ramp-up-strategy: the gap after arrival i has mean
// 1/rate(i), rate(i) = start + (end - start)·p (linear) or start·(end/start)^p
// (exponential), p = i/(n−1); gamma (burstiness) or constant gaps.
std::vector<int64_t> MakeRampSchedule(int64_t n, double start_rps, double end_rps,
                                      RampStrategy strategy, double burstiness,
                                      ArrivalProcess process, uint64_t seed);

// Offsets of a multi-stage schedule: stage k, starting where the stage before it ends,
// holds exactly round(rate·duration) arrivals in its window, their gaps drawn as above and
// scaled to fill it, so its realised rate is the configured one whatever the seed.
std::vector<int64_t> MakeStagedSchedule(const std::vector<LoadStage>& stages, double burstiness,
                                        ArrivalProcess process, uint64_t seed);

// Start offset (ns) of each stage and, last, the end of the final one.
std::vector<int64_t> StageBoundariesNs(const std::vector<LoadStage>& stages);

}  // namespace servebench::client
