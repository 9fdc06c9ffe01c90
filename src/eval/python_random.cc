// MT19937 as in CPython's Modules/_randommodule.c (the reference algorithm of
// Matsumoto and Nishimura), and random.sample from Lib/random.py.
#include "eval/python_random.h"

#include <cmath>
#include <unordered_set>

namespace servebench::eval {

void PythonRandom::InitGenrand(uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < kN; ++i) {
    mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  }
  index_ = kN;
}

PythonRandom::PythonRandom(uint64_t seed) {
  // CPython seeds from the absolute value's 32-bit words, least significant
  // first; zero becomes the one-word key {0}.
  std::vector<uint32_t> key;
  do {
    key.push_back(static_cast<uint32_t>(seed & 0xffffffffU));
    seed >>= 32;
  } while (seed != 0);
  InitGenrand(19650218U);
  int i = 1;
  size_t j = 0;
  const int key_length = static_cast<int>(key.size());
  for (int k = (kN > key_length ? kN : key_length); k > 0; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] +
             static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    mt_[i] =
        (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000U;
  index_ = kN;
}

uint32_t PythonRandom::NextUint32() {
  static constexpr int kM = 397;
  static constexpr uint32_t kMatrixA = 0x9908b0dfU;
  static constexpr uint32_t kUpper = 0x80000000U;
  static constexpr uint32_t kLower = 0x7fffffffU;
  if (index_ >= kN) {
    int kk = 0;
    for (; kk < kN - kM; ++kk) {
      uint32_t y = (mt_[kk] & kUpper) | (mt_[kk + 1] & kLower);
      mt_[kk] = mt_[kk + kM] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    for (; kk < kN - 1; ++kk) {
      uint32_t y = (mt_[kk] & kUpper) | (mt_[kk + 1] & kLower);
      mt_[kk] = mt_[kk + (kM - kN)] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    uint32_t y = (mt_[kN - 1] & kUpper) | (mt_[0] & kLower);
    mt_[kN - 1] = mt_[kM - 1] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    index_ = 0;
  }
  uint32_t y = mt_[index_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

uint32_t PythonRandom::GetRandBits(int k) {
  if (k <= 0) return 0;
  return NextUint32() >> (32 - k);
}

uint64_t PythonRandom::RandBelow(uint64_t n) {
  int k = 0;
  while (k < 64 && (n >> k) != 0) ++k;  // n.bit_length()
  // Populations here are far below 2^32; getrandbits(k <= 32) is one draw.
  uint64_t r = GetRandBits(k);
  while (r >= n) r = GetRandBits(k);
  return r;
}

std::vector<size_t> PythonRandom::Sample(size_t n, size_t k) {
  std::vector<size_t> result(k);
  size_t setsize = 21;  // Lib/random.py: size of a small set minus an empty list
  if (k > 5) {
    setsize += static_cast<size_t>(
        std::pow(4.0, std::ceil(std::log(static_cast<double>(k) * 3) / std::log(4.0))));
  }
  if (n <= setsize) {
    std::vector<size_t> pool(n);
    for (size_t i = 0; i < n; ++i) pool[i] = i;
    for (size_t i = 0; i < k; ++i) {
      size_t j = RandBelow(n - i);
      result[i] = pool[j];
      pool[j] = pool[n - i - 1];
    }
  } else {
    std::unordered_set<size_t> selected;
    for (size_t i = 0; i < k; ++i) {
      size_t j = RandBelow(n);
      while (selected.contains(j)) j = RandBelow(n);
      selected.insert(j);
      result[i] = j;
    }
  }
  return result;
}

}  // namespace servebench::eval
