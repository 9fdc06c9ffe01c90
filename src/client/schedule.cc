#include "client/schedule.h"

#include <cmath>
#include <random>

namespace servebench::client {

std::vector<int64_t> MakeArrivalSchedule(int64_t n, double rate_per_s, double burstiness,
                                         ArrivalProcess process, uint64_t seed) {
  std::vector<int64_t> out(static_cast<size_t>(std::max<int64_t>(n, 0)), 0);
  if (rate_per_s <= 0 || n <= 0) return out;
  double mean_gap_s = 1.0 / rate_per_s;
  if (process == ArrivalProcess::kConstant) {
    // i / rate exactly, not a running sum: 10 gaps of 1/50 s must end at 0.2 s, not a
    // rounding error before it (a duration bound at 0.2 s would admit an 11th arrival).
    for (int64_t i = 0; i < n; ++i) {
      out[static_cast<size_t>(i)] = std::llround(static_cast<double>(i) * 1e9 / rate_per_s);
    }
    return out;
  }
  // Independent stream from the dataset's: arrival jitter never changes prompts.
  std::mt19937_64 rng(seed ^ 0x5eed'a771'7a15ULL);
  std::gamma_distribution<double> gamma(burstiness, mean_gap_s / burstiness);
  double t_s = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)] = static_cast<int64_t>(t_s * 1e9);
    t_s += process == ArrivalProcess::kConstant ? mean_gap_s : gamma(rng);
  }
  return out;
}

}  // namespace servebench::client
