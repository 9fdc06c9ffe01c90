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
