#include "client/lag_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace servebench::client {

// Values below 2·64 are their own bucket; above, a value keeps its top 7 bits:
// shift s = bit_width − 7 puts v >> s in [64, 128) and the bucket is 64·s + (v >> s).
int LagHistogram::BucketOf(uint64_t ns) {
  constexpr uint64_t kExact = uint64_t{2} << kSubBits;
  if (ns < kExact) return static_cast<int>(ns);
  int shift = std::bit_width(ns) - (kSubBits + 1);
  return (shift << kSubBits) + static_cast<int>(ns >> shift);
}

uint64_t LagHistogram::UpperBoundOf(int bucket) {
  constexpr int kExact = 2 << kSubBits;
  if (bucket < kExact) return static_cast<uint64_t>(bucket);
  int shift = (bucket >> kSubBits) - 1;
  uint64_t mantissa = static_cast<uint64_t>(bucket - (shift << kSubBits));
  return ((mantissa + 1) << shift) - 1;
}

void LagHistogram::Record(int64_t ns) {
  uint64_t v = ns < 0 ? 0 : static_cast<uint64_t>(ns);
  ++counts_[static_cast<size_t>(std::min(BucketOf(v), kBuckets - 1))];
  ++count_;
  max_ns_ = std::max<int64_t>(max_ns_, static_cast<int64_t>(v));
}

void LagHistogram::Merge(const LagHistogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  max_ns_ = std::max(max_ns_, other.max_ns_);
}

int64_t LagHistogram::PercentileNs(double p) const {
  if (count_ == 0) return 0;
  auto rank = static_cast<int64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
  rank = std::clamp<int64_t>(rank, 1, count_);
  int64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts_[static_cast<size_t>(b)];
    if (seen >= rank) return std::min(static_cast<int64_t>(UpperBoundOf(b)), max_ns_);
  }
  return max_ns_;
}

}  // namespace servebench::client
