#include "client/schedule.h"

#include <cmath>
#include <random>

namespace servebench::client {

namespace {

// Independent stream from the dataset's: arrival jitter never changes prompts.
std::mt19937_64 ScheduleRng(uint64_t seed) { return std::mt19937_64(seed ^ 0x5eed'a771'7a15ULL); }

// One gap of mean `mean_gap_s`: gamma with the given shape, or exactly the mean.
double Gap(std::mt19937_64& rng, double mean_gap_s, double burstiness, ArrivalProcess process) {
  if (process == ArrivalProcess::kConstant) return mean_gap_s;
  std::gamma_distribution<double> gamma(burstiness, mean_gap_s / burstiness);
  return gamma(rng);
}

}  // namespace

std::vector<int64_t> MakeArrivalSchedule(int64_t n, double rate_per_s, double burstiness,
                                         ArrivalProcess process, uint64_t seed) {
  std::vector<int64_t> out(static_cast<size_t>(std::max<int64_t>(n, 0)), 0);
  if (rate_per_s <= 0 || n <= 0) return out;
  std::mt19937_64 rng = ScheduleRng(seed);
  double mean_gap_s = 1.0 / rate_per_s;
  if (process == ArrivalProcess::kConstant) {
    // i / rate exactly, not a running sum: 10 gaps of 1/50 s must end at 0.2 s, not a
    // rounding error before it (a duration bound at 0.2 s would admit an 11th arrival).
    for (int64_t i = 0; i < n; ++i) {
      out[static_cast<size_t>(i)] = std::llround(static_cast<double>(i) * 1e9 / rate_per_s);
    }
    return out;
  }
  double t_s = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)] = static_cast<int64_t>(t_s * 1e9);
    t_s += Gap(rng, mean_gap_s, burstiness, process);
  }
  return out;
}

std::vector<int64_t> MakeRampSchedule(int64_t n, double start_rps, double end_rps,
                                      RampStrategy strategy, double burstiness,
                                      ArrivalProcess process, uint64_t seed) {
  std::vector<int64_t> out(static_cast<size_t>(std::max<int64_t>(n, 0)), 0);
  std::mt19937_64 rng = ScheduleRng(seed);
  double t_s = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)] = static_cast<int64_t>(t_s * 1e9);
    double p = static_cast<double>(i) / static_cast<double>(std::max<int64_t>(n - 1, 1));
    double rate = strategy == RampStrategy::kExponential
                      ? start_rps * std::pow(end_rps / start_rps, p)
                      : start_rps + (end_rps - start_rps) * p;
    t_s += Gap(rng, 1.0 / rate, burstiness, process);
  }
  return out;
}

std::vector<int64_t> StageBoundariesNs(const std::vector<LoadStage>& stages) {
  std::vector<int64_t> out{0};
  double t_s = 0;
  for (const LoadStage& st : stages) {
    t_s += st.duration_s;
    out.push_back(static_cast<int64_t>(std::llround(t_s * 1e9)));
  }
  return out;
}

std::vector<int64_t> MakeStagedSchedule(const std::vector<LoadStage>& stages, double burstiness,
                                        ArrivalProcess process, uint64_t seed) {
  std::mt19937_64 rng = ScheduleRng(seed);
  std::vector<int64_t> bounds = StageBoundariesNs(stages);
  std::vector<int64_t> out;
  for (size_t k = 0; k < stages.size(); ++k) {
    int64_t n = std::llround(stages[k].rate_per_s * stages[k].duration_s);
    if (n <= 0) continue;
    // n gaps; arrival j sits at the window's start plus the first j gaps, all scaled so
    // the n gaps span the window exactly: the last arrival is one (scaled) gap before
    // the window ends and the next stage's first arrival at its start.
    std::vector<double> cumulative(static_cast<size_t>(n) + 1, 0);
    double mean_gap_s = 1.0 / stages[k].rate_per_s;
    for (int64_t j = 0; j < n; ++j) {
      cumulative[static_cast<size_t>(j) + 1] =
          cumulative[static_cast<size_t>(j)] + Gap(rng, mean_gap_s, burstiness, process);
    }
    double window_ns = static_cast<double>(bounds[k + 1] - bounds[k]);
    double total = cumulative.back();
    for (int64_t j = 0; j < n; ++j) {
      out.push_back(bounds[k] +
                    std::llround(window_ns * cumulative[static_cast<size_t>(j)] / total));
    }
  }
  return out;
}

}  // namespace servebench::client
