// Deterministic 64-bit mixing for block keys and token streams: SplitMix64's
// finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014). Not cryptographic; stable across platforms and releases, because
// synthesized prompts must be the same tokens on every run with the same seed.
#pragma once

#include <cstdint>

namespace servebench::trace {

inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Combines a running key with one more value (order matters).
inline uint64_t MixInto(uint64_t key, uint64_t value) { return Mix64(key ^ Mix64(value)); }

}  // namespace servebench::trace
