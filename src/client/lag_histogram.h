// LagHistogram: a fixed-size log-linear histogram of non-negative nanosecond
// durations, for the client's measurement of itself: how long each read waited
// between the kernel receiving its bytes and the client's thread reading them
// (receive lag). Record() is a few instructions and never allocates, so it can sit
// on the hot path; 64 sub-buckets per power of two bound a reported quantile's
// relative error by 1/64 (values below 128 ns are exact). One histogram per worker
// thread; Merge() them afterwards. Not thread-safe.
#pragma once

#include <array>
#include <cstdint>

namespace servebench::client {

class LagHistogram {
 public:
  void Record(int64_t ns);
  void Merge(const LagHistogram& other);

  int64_t count() const { return count_; }
  int64_t max_ns() const { return max_ns_; }
  // The smallest bucket upper bound at or above the p-th percentile (0 < p <= 100):
  // an upper estimate within 1/64 of the true quantile. 0 when empty.
  int64_t PercentileNs(double p) const;

 private:
  static constexpr int kSubBits = 6;  // 64 sub-buckets per octave
  static constexpr int kBuckets = (64 - kSubBits) << kSubBits;
  static int BucketOf(uint64_t ns);
  static uint64_t UpperBoundOf(int bucket);

  std::array<int64_t, kBuckets> counts_{};
  int64_t count_ = 0;
  int64_t max_ns_ = 0;
};

}  // namespace servebench::client
