#include "sim/spec_decode.h"

#include <gtest/gtest.h>

namespace servebench::sim {
namespace {

TEST(AcceptanceSamplerTest, AlphaSolvesTheChainSum) {
  double a = SolveAlpha(3, 2.8);
  EXPECT_NEAR(a + a * a + a * a * a, 1.8, 1e-9);
  EXPECT_NEAR(SolveAlpha(3, 1.0), 0.0, 1e-9);
  EXPECT_NEAR(SolveAlpha(3, 4.0), 1.0, 1e-9);
}

TEST(AcceptanceSamplerTest, MeanAcceptanceMatchesTargetOver10000Steps) {
  for (double target : {1.5, 2.2, 2.78, 3.5}) {
    auto s = AcceptanceSampler::Create(3, target, 42);
    ASSERT_TRUE(s.ok());
    double sum = 0;
    std::vector<int> per_pos(3, 0);
    for (int i = 0; i < 10000; ++i) {
      int a = s->Draw();
      sum += a;
      for (int k = 0; k < a; ++k) ++per_pos[k];
    }
    EXPECT_NEAR(1 + sum / 10000, target, target * 0.02) << target;
    EXPECT_GE(per_pos[0], per_pos[1]);
    EXPECT_GE(per_pos[1], per_pos[2]);
  }
}

TEST(AcceptanceSamplerTest, RejectsTargetsOutsideTheReachableRange) {
  EXPECT_FALSE(AcceptanceSampler::Create(3, 4.5, 0).ok());
  EXPECT_FALSE(AcceptanceSampler::Create(3, 0.9, 0).ok());
  EXPECT_FALSE(AcceptanceSampler::Create(0, 1.0, 0).ok());
}

}  // namespace
}  // namespace servebench::sim
