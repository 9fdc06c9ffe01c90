#include "sim/spec_decode.h"

#include <fmt/format.h>

#include <cmath>

namespace servebench::sim {

double SolveAlpha(int k, double target_al) {
  auto expected = [k](double a) {
    double sum = 0, p = 1;
    for (int i = 0; i < k; ++i) {
      p *= a;
      sum += p;
    }
    return sum;
  };
  double want = target_al - 1, lo = 0, hi = 1;
  for (int it = 0; it < 100; ++it) {
    double mid = (lo + hi) / 2;
    (expected(mid) < want ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

StatusOr<AcceptanceSampler> AcceptanceSampler::Create(int k, double target_al, uint64_t seed) {
  if (k < 1)
    return Status::InvalidArgument(fmt::format("num_speculative_tokens {}: must be >= 1", k));
  if (!(target_al >= 1.0 && target_al <= k + 1.0)) {
    return Status::InvalidArgument(fmt::format(
        "synthetic_acceptance_length {}: must be in [1, num_speculative_tokens + 1 = {}] "
        "(it counts the target's own token)",
        target_al, k + 1));
  }
  return AcceptanceSampler(k, SolveAlpha(k, target_al), seed);
}

int AcceptanceSampler::Draw() {
  int accepted = 0;
  while (accepted < k_ && uniform_(rng_) < alpha_) ++accepted;
  return accepted;
}

std::vector<double> AcceptanceSampler::PerPositionRates() const {
  std::vector<double> out;
  double p = 1;
  for (int i = 0; i < k_; ++i) {
    p *= alpha_;
    out.push_back(p);
  }
  return out;
}

}  // namespace servebench::sim
