#include "verdict/change_points.h"

#include <gtest/gtest.h>

#include <cmath>

namespace servebench::verdict {
namespace {

// A deterministic +-1 % wiggle so the tests do not depend on a random generator.
std::vector<double> Level(double level, size_t n, size_t phase = 0) {
  static const double kWiggle[] = {0.004, -0.007, 0.01, -0.002, 0.006, -0.009, 0.001, -0.004};
  std::vector<double> x;
  for (size_t i = 0; i < n; ++i) x.push_back(level * (1 + kWiggle[(i + phase) % 8]));
  return x;
}

TEST(ChangePointsTest, FindsTheFirstNightOfAStep) {
  std::vector<double> x = Level(1000, 20);
  std::vector<double> after = Level(940, 10, 3);
  x.insert(x.end(), after.begin(), after.end());
  std::vector<ChangePoint> cps = FindChangePoints(x, VerdictSettings{});
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 20u);
  EXPECT_NEAR(cps[0].change_rel, -0.06, 0.01);
  EXPECT_LE(cps[0].p, 0.001);
}

TEST(ChangePointsTest, FindsTwoSteps) {
  std::vector<double> x = Level(1000, 15);
  for (double v : Level(900, 15, 2)) x.push_back(v);
  for (double v : Level(1000, 15, 5)) x.push_back(v);
  std::vector<ChangePoint> cps = FindChangePoints(x, VerdictSettings{});
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 15u);
  EXPECT_EQ(cps[1].index, 30u);
}

TEST(ChangePointsTest, NoiseAloneAndSmallStepsAreNotChanges) {
  EXPECT_TRUE(FindChangePoints(Level(1000, 40), VerdictSettings{}).empty());
  std::vector<double> x = Level(1000, 20);
  for (double v : Level(990, 20, 1)) x.push_back(v);  // 1 %: below the 2 % minimum
  EXPECT_TRUE(FindChangePoints(x, VerdictSettings{}).empty());
}

TEST(ChangePointsTest, RespectsMinimumSegment) {
  std::vector<double> x = Level(1000, 20);
  x.push_back(900);
  x.push_back(905);  // two nights: shorter than the 3-night minimum segment
  for (const ChangePoint& cp : FindChangePoints(x, VerdictSettings{})) {
    EXPECT_GE(cp.index, 3u);
    EXPECT_LE(cp.index, x.size() - 3);  // never a 2-night segment at the end
  }
}

}  // namespace
}  // namespace servebench::verdict
