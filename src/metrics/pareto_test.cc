// The frontier of regression.md §3's worked example, and how ties are broken.
#include "metrics/pareto.h"

#include <gtest/gtest.h>

namespace servebench::metrics {
namespace {

TEST(ParetoTest, WorkedExampleDropsDominatedPoints) {
  std::vector<CurvePoint> f = ParetoFrontier(
      {{20, 3000, 0}, {30, 2000, 1}, {40, 2000, 2}, {40, 1800, 3}, {60, 1000, 4}, {100, 200, 5}});
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].tag, 0u);
  EXPECT_EQ(f[1].tag, 2u) << "(30, 2000) and (40, 1800) are dominated by (40, 2000)";
  EXPECT_EQ(f[2].tag, 4u);
  EXPECT_EQ(f[3].tag, 5u);
}

TEST(ParetoTest, EqualInteractivityKeepsTheHigherThroughput) {
  std::vector<CurvePoint> f = ParetoFrontier({{50, 10, 7}, {50, 20, 8}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].tag, 8u);
}

TEST(ParetoTest, ExactDuplicatesAreKeptOnce) {
  std::vector<CurvePoint> f = ParetoFrontier({{50, 10, 1}, {50, 10, 2}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].tag, 1u) << "the first of equal points stays";
}

}  // namespace
}  // namespace servebench::metrics
