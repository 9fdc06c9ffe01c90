// Deterministic 64-bit mixing for block keys and token streams, built on SplitMix64
// (common/splitmix64.h). Not cryptographic; stable across platforms and releases,
// because synthesized prompts must be the same tokens on every run with the same seed.
#pragma once

#include <cstdint>

#include "common/splitmix64.h"

namespace servebench::trace {

// One SplitMix64 step from state x: the generator's output after x.
inline uint64_t Mix64(uint64_t x) { return SplitMix64Finalize(x + kSplitMix64Gamma); }

// Combines a running key with one more value (order matters).
inline uint64_t MixInto(uint64_t key, uint64_t value) { return Mix64(key ^ Mix64(value)); }

}  // namespace servebench::trace
