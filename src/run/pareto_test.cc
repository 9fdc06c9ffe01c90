#include "run/pareto.h"

#include <gtest/gtest.h>

namespace servebench::run {
namespace {

TEST(ParetoTest, DominatedPointsAreDropped) {
  std::vector<CurvePoint> pts = {
      {100, 50, 1, "a"},  {80, 200, 4, "a"}, {60, 150, 8, "b"},  // (60,150) dominated by (80,200)
      {40, 400, 16, "a"}, {90, 40, 1, "b"},                      // (90,40) dominated by (100,50)
  };
  auto f = ParetoFrontier(pts);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].interactivity, 40);
  EXPECT_EQ(f[1].interactivity, 80);
  EXPECT_EQ(f[2].interactivity, 100);
}

TEST(ParetoTest, EqualInteractivityKeepsTheHigherThroughput) {
  auto f = ParetoFrontier({{50, 10, 1, "x"}, {50, 20, 2, "y"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].label, "y");
}

}  // namespace
}  // namespace servebench::run
