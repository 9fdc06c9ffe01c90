#include "metrics/percentile.h"

#include <gtest/gtest.h>

namespace servebench::metrics {
namespace {

// metrics.md §9 B.
TEST(StatsTest, WorkedExampleBMatchesNumPyLinearAndPopulationStd) {
  Stats s = ComputeStats({40, 10, 30, 20}, {90, 99, 99.9});
  EXPECT_DOUBLE_EQ(s.mean, 25.0);
  EXPECT_DOUBLE_EQ(s.median, 25.0);
  EXPECT_NEAR(s.std, 11.1803, 1e-4);
  EXPECT_NEAR(*s.At(90), 37.0, 1e-9);
  EXPECT_NEAR(*s.At(99), 39.7, 1e-9);
  EXPECT_NEAR(*s.At(99.9), 39.97, 1e-9);
}

TEST(StatsTest, EmptySetIsMarkedEmpty) {
  Stats s = ComputeStats({}, {99});
  EXPECT_TRUE(s.empty());
  EXPECT_FALSE(s.At(99).has_value());
}

TEST(PercentileTest, SingleValueIsEveryPercentile) {
  EXPECT_EQ(*PercentileOfSorted({7}, 0), 7);
  EXPECT_EQ(*PercentileOfSorted({7}, 100), 7);
}

TEST(PercentileTest, EndpointsAreMinAndMax) {
  std::vector<double> x = {1, 2, 3, 10};
  EXPECT_EQ(*PercentileOfSorted(x, 0), 1);
  EXPECT_EQ(*PercentileOfSorted(x, 100), 10);
  EXPECT_DOUBLE_EQ(*PercentileOfSorted(x, 50), 2.5);
}

}  // namespace
}  // namespace servebench::metrics
