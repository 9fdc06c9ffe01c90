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

}  // namespace servebench::client
