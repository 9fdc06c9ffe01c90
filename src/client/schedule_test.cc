#include "client/schedule.h"

#include <gtest/gtest.h>

namespace servebench::client {
namespace {

TEST(ScheduleTest, InfiniteRateSendsEverythingAtZero) {
  for (int64_t t : MakeArrivalSchedule(5, 0, 1, ArrivalProcess::kGamma, 1)) EXPECT_EQ(t, 0);
}

TEST(ScheduleTest, ConstantArrivalsAreEvenlySpaced) {
  auto s = MakeArrivalSchedule(4, 10, 1, ArrivalProcess::kConstant, 1);
  EXPECT_EQ(s, (std::vector<int64_t>{0, 100'000'000, 200'000'000, 300'000'000}));
}

TEST(ScheduleTest, PoissonMeanGapMatchesTheRateAndTheSeedReproduces) {
  auto a = MakeArrivalSchedule(20001, 100, 1, ArrivalProcess::kGamma, 7);
  EXPECT_NEAR(a.back() / 1e9 / 20000, 0.01, 0.0005);
  EXPECT_EQ(a, MakeArrivalSchedule(20001, 100, 1, ArrivalProcess::kGamma, 7));
  EXPECT_NE(a, MakeArrivalSchedule(20001, 100, 1, ArrivalProcess::kGamma, 8));
  auto bursty = MakeArrivalSchedule(20001, 100, 0.25, ArrivalProcess::kGamma, 7);
  EXPECT_NEAR(bursty.back() / 1e9 / 20000, 0.01, 0.001);
}

}  // namespace
}  // namespace servebench::client

namespace servebench::client {
namespace {

TEST(ScheduleTest, LinearRampGapsFollowTheRateByRequestIndex) {
  // 5 requests from 10 to 50 req/s: rates 10, 20, 30, 40, 50; gaps after each 1/rate.
  auto s = MakeRampSchedule(5, 10, 50, RampStrategy::kLinear, 1, ArrivalProcess::kConstant, 1);
  std::vector<int64_t> want = {0, 100'000'000, 150'000'000, 183'333'333, 208'333'333};
  ASSERT_EQ(s.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(s[i], want[i], 2) << i;
}

TEST(ScheduleTest, ExponentialRampMultipliesTheRateByAConstantRatio) {
  // 3 requests from 1 to 100 req/s: rates 1, 10, 100.
  auto s = MakeRampSchedule(3, 1, 100, RampStrategy::kExponential, 1, ArrivalProcess::kConstant, 1);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], 0);
  EXPECT_NEAR(s[1], 1'000'000'000, 2);
  EXPECT_NEAR(s[2], 1'100'000'000, 2);
}

TEST(ScheduleTest, EachStageHoldsExactlyItsRateTimesItsDurationInsideItsWindow) {
  std::vector<LoadStage> stages = {{20, 2}, {50, 1}, {5, 4}};
  for (uint64_t seed : {1, 2, 3}) {
    auto s = MakeStagedSchedule(stages, 1.0, ArrivalProcess::kGamma, seed);
    std::vector<int64_t> bounds = StageBoundariesNs(stages);
    ASSERT_EQ(bounds, (std::vector<int64_t>{0, 2'000'000'000, 3'000'000'000, 7'000'000'000}));
    std::vector<int> per_stage(3, 0);
    for (size_t i = 0; i < s.size(); ++i) {
      if (i > 0) {
        EXPECT_GE(s[i], s[i - 1]);
      }
      for (size_t k = 0; k < 3; ++k) {
        if (s[i] >= bounds[k] && s[i] < bounds[k + 1]) ++per_stage[k];
      }
    }
    EXPECT_EQ(per_stage, (std::vector<int>{40, 50, 20})) << "seed " << seed;
    EXPECT_EQ(s.front(), 0);
  }
  // Constant gaps: evenly spaced, each stage starting on its boundary.
  auto c = MakeStagedSchedule({{10, 0.3}, {20, 0.1}}, 1.0, ArrivalProcess::kConstant, 1);
  EXPECT_EQ(c, (std::vector<int64_t>{0, 100'000'000, 200'000'000, 300'000'000, 350'000'000}));
}

}  // namespace
}  // namespace servebench::client
