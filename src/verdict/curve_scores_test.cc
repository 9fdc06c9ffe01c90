// The worked example of regression.md §3.
#include "verdict/curve_scores.h"

#include <gtest/gtest.h>

namespace servebench::verdict {
namespace {

std::vector<CurvePoint> Example() {
  return metrics::ParetoFrontier(
      {{20, 3000}, {30, 2000}, {40, 2000}, {40, 1800}, {60, 1000}, {100, 200}});
}

TEST(CurveScoresTest, FrontierDropsDominatedPoints) {
  std::vector<CurvePoint> f = Example();
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].intvty, 20);
  EXPECT_EQ(f[1].intvty, 40);
  EXPECT_EQ(f[1].tput_per_gpu, 2000);
  EXPECT_EQ(f[2].intvty, 60);
  EXPECT_EQ(f[3].intvty, 100);
}

TEST(CurveScoresTest, TputAtIntvtyMatchesWorkedExample) {
  std::vector<CurvePoint> f = Example();
  EXPECT_NEAR(*TputAtIntvty(f, 35), 2250.0, 1e-9);
  EXPECT_NEAR(*TputAtIntvty(f, 50), 1475.0, 1e-9);
  EXPECT_NEAR(*TputAtIntvty(f, 80), 450.0, 1e-9);
  EXPECT_FALSE(TputAtIntvty(f, 10).has_value());
  EXPECT_FALSE(TputAtIntvty(f, 120).has_value());
}

TEST(CurveScoresTest, TwoPointsInterpolateLinearly) {
  std::vector<CurvePoint> f = metrics::ParetoFrontier({{10, 100}, {20, 50}});
  EXPECT_NEAR(*TputAtIntvty(f, 15), 75, 1e-12);
}

TEST(CurveScoresTest, ParetoAucMatchesWorkedExample) {
  std::vector<CurvePoint> f = Example();
  EXPECT_NEAR(*ParetoAuc(f, 20, 100), 1300.0, 1e-9);
  EXPECT_NEAR(*ParetoAuc(f, 10, 120), 104000.0 / 110, 1e-9);
  EXPECT_FALSE(ParetoAuc(f, 50, 50).has_value());
}

}  // namespace
}  // namespace servebench::verdict
