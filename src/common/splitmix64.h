// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014) and FNV-1a 64: the one definition of the small, platform-stable
// generators servebench seeds its synthetic data with. The standard library's
// distributions are not specified bit for bit, and every synthetic artefact here (trace
// prompts, the sim's text, eval datasets, random-weight models) must be the same on
// every machine and release for a given seed. Not cryptographic.
#pragma once

#include <cstdint>
#include <string_view>

namespace servebench {

// SplitMix64's increment: the odd integer nearest 2^64 / φ.
inline constexpr uint64_t kSplitMix64Gamma = 0x9e3779b97f4a7c15ull;

// SplitMix64's output function alone (a bijection that mixes every input bit into every
// output bit): for hashes whose low bits alone are poorly mixed, and for Mix64 below.
inline constexpr uint64_t SplitMix64Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The generator: each Next() advances the state by the gamma and finalises it.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(uint64_t seed) : state_(seed) {}
  constexpr uint64_t Next() { return SplitMix64Finalize(state_ += kSplitMix64Gamma); }

 private:
  uint64_t state_;
};

inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnv1a64Prime = 0x100000001b3ull;

// FNV-1a 64 over `bytes`, continuing from `hash` (so several pieces hash as one).
inline constexpr uint64_t Fnv1a64(std::string_view bytes, uint64_t hash = kFnv1a64Offset) {
  for (unsigned char c : bytes) hash = (hash ^ c) * kFnv1a64Prime;
  return hash;
}

}  // namespace servebench
