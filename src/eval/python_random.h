// PythonRandom reproduces CPython's `random.Random(seed)` for the two calls lm-eval's
// few-shot sampler makes: seeding from a non-negative int (init_by_array over its
// 32-bit words) and `sample(population, k)` (set-based or pool-based selection,
// `_randbelow` by rejection over getrandbits). With it, servebench picks the same
// few-shot examples, in the same order, as lm-evaluation-harness with
// fewshot_random_seed 1234. Not thread-safe: one instance per sequence.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace servebench::eval {

class PythonRandom {
 public:
  explicit PythonRandom(uint64_t seed);

  // random.getrandbits(k) for 0 <= k <= 32.
  uint32_t GetRandBits(int k);
  // random._randbelow(n) for n >= 1.
  uint64_t RandBelow(uint64_t n);
  // Indices chosen by random.sample(range(n), k), in Python's order; k <= n.
  std::vector<size_t> Sample(size_t n, size_t k);

 private:
  uint32_t NextUint32();
  void InitGenrand(uint32_t s);

  static constexpr int kN = 624;
  std::array<uint32_t, kN> mt_{};
  int index_ = kN + 1;
};

}  // namespace servebench::eval
