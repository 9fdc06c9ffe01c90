#include "verdict/robust_stats.h"

#include <gtest/gtest.h>

namespace servebench::verdict {
namespace {

TEST(RobustStatsTest, MedianOfOddAndEvenSizes) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({}), 0);
}

TEST(RobustStatsTest, MadIgnoresOneOutlier) { EXPECT_DOUBLE_EQ(Mad({1, 2, 3, 4, 100}), 1); }

TEST(RobustStatsTest, RollingResidualsOfAConstantAreZero) {
  for (double r : RollingMedianResiduals({5, 5, 5, 5, 5, 5}, 5)) EXPECT_DOUBLE_EQ(r, 0);
}

TEST(RobustStatsTest, StudentTCdfMatchesTables) {
  // t = 2.228 is the two-sided 5 % critical value at 10 df; 12.706 at 1 df.
  EXPECT_NEAR(StudentTCdf(2.228, 10), 0.975, 1e-4);
  EXPECT_NEAR(StudentTCdf(12.706, 1), 0.975, 1e-4);
  EXPECT_NEAR(StudentTCdf(0, 5), 0.5, 1e-12);
  EXPECT_NEAR(StudentTCdf(-1.96, 1e6), 0.025, 1e-3);
}

TEST(RobustStatsTest, WelchSeesAClearShift) {
  WelchResult r = WelchTTest({10, 10.1, 9.9, 10.05}, {11, 11.1, 10.9, 11.05});
  EXPECT_LT(r.t, -10);
  EXPECT_LT(r.p_two_sided, 1e-4);
  EXPECT_DOUBLE_EQ(WelchTTest({1}, {2, 3}).p_two_sided, 1);
}

TEST(RobustStatsTest, MannWhitneyAndKsSeparateDisjointSamplesOnly) {
  std::vector<double> a{1, 2, 3, 4, 5, 6, 7, 8}, b{11, 12, 13, 14, 15, 16, 17, 18};
  EXPECT_LT(MannWhitneyP(a, b), 0.01);
  EXPECT_LT(KolmogorovSmirnovP(a, b), 0.01);
  std::vector<double> c{1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5};
  EXPECT_GT(MannWhitneyP(a, c), 0.5);
  EXPECT_GT(KolmogorovSmirnovP(a, c), 0.5);
}

TEST(RobustStatsTest, McNemarExactMatchesBinomial) {
  // b = 10, c = 2: 2 * P[X <= 2], X ~ Bin(12, 1/2) = 2 * 79 / 4096.
  EXPECT_NEAR(McNemarExactP(10, 2), 2.0 * 79 / 4096, 1e-12);
  EXPECT_DOUBLE_EQ(McNemarExactP(0, 0), 1);
  EXPECT_DOUBLE_EQ(McNemarExactP(5, 5), 1);
}

TEST(RobustStatsTest, BenjaminiHochbergKeepsTheSmallOnes) {
  std::vector<bool> keep = BenjaminiHochberg({0.001, 0.04, 0.03, 0.9}, 0.05);
  EXPECT_EQ(keep, (std::vector<bool>{true, false, false, false}));
  keep = BenjaminiHochberg({0.01, 0.02, 0.03}, 0.05);
  EXPECT_EQ(keep, (std::vector<bool>{true, true, true}));
}

}  // namespace
}  // namespace servebench::verdict
