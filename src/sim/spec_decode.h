// AcceptanceSampler: how many of a step's k draft tokens the simulated verifier
// accepts. Position i (0-based) is accepted only if every earlier position was,
// with conditional probability α each, so P(position i accepted) = α^(i+1) and the
// mean acceptance length is AL = 1 + Σ_{i=1..k} α^i. Given a target AL, α is solved
// by bisection (docs/simulator.md, "Speculative decoding"). Deterministic for a
// seed. The same rule as the chain acceptance of Leviathan et al. (ICML 2023).
// Not thread-safe (owns its random state).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/status.h"

namespace servebench::sim {

class AcceptanceSampler {
 public:
  // Fails unless 1 <= target_al <= k + 1 and k >= 1.
  static StatusOr<AcceptanceSampler> Create(int num_speculative_tokens, double target_al,
                                            uint64_t seed);

  // Accepted drafts for one verify step, in [0, k].
  int Draw();

  double alpha() const { return alpha_; }
  int k() const { return k_; }
  // P(position i accepted) = alpha^(i+1).
  std::vector<double> PerPositionRates() const;

 private:
  AcceptanceSampler(int k, double alpha, uint64_t seed) : k_(k), alpha_(alpha), rng_(seed) {}
  int k_;
  double alpha_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
};

// Solves Σ_{i=1..k} α^i = target_al − 1 for α in [0, 1].
double SolveAlpha(int k, double target_al);

}  // namespace servebench::sim
