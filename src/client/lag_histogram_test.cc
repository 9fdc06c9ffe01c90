#include "client/lag_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace servebench::client {
namespace {

TEST(LagHistogramTest, SmallValuesAreExact) {
  LagHistogram h;
  for (int v = 0; v < 100; ++v) h.Record(v);
  EXPECT_EQ(h.count(), 100);
  EXPECT_EQ(h.PercentileNs(50), 49);
  EXPECT_EQ(h.PercentileNs(100), 99);
  EXPECT_EQ(h.max_ns(), 99);
}

TEST(LagHistogramTest, QuantilesAreUpperEstimatesWithinOneSixtyFourth) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(std::log(20'000.0), 1.5);  // ~20 us, long tail
  std::vector<int64_t> values;
  LagHistogram h;
  for (int i = 0; i < 200'000; ++i) {
    auto v = static_cast<int64_t>(dist(rng));
    values.push_back(v);
    h.Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    int64_t exact = values[static_cast<size_t>(std::ceil(p / 100 * values.size())) - 1];
    int64_t est = h.PercentileNs(p);
    EXPECT_GE(est, exact) << "p" << p;
    EXPECT_LE(static_cast<double>(est), static_cast<double>(exact) * (1 + 1.0 / 64) + 1)
        << "p" << p;
  }
  EXPECT_EQ(h.max_ns(), values.back());
}

TEST(LagHistogramTest, MergeAddsCountsAndKeepsTheMax) {
  LagHistogram a, b;
  a.Record(1'000);
  b.Record(5'000'000);
  b.Record(-3);  // a clock step cannot make a negative lag: counted as 0
  a.Merge(b);
  EXPECT_EQ(a.count(), 3);
  EXPECT_EQ(a.max_ns(), 5'000'000);
  EXPECT_EQ(a.PercentileNs(1), 0);
  EXPECT_EQ(a.PercentileNs(100), 5'000'000);
  EXPECT_EQ(LagHistogram().PercentileNs(99), 0);
}

TEST(LagHistogramTest, HugeValuesDoNotOverflowTheBuckets) {
  LagHistogram h;
  h.Record(INT64_MAX);
  EXPECT_EQ(h.PercentileNs(50), INT64_MAX);
}

}  // namespace
}  // namespace servebench::client
