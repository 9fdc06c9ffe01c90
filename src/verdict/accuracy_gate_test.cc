#include "verdict/accuracy_gate.h"

#include <gtest/gtest.h>

namespace servebench::verdict {
namespace {

AccuracyResult Items(double value, size_t n, size_t first_wrong, size_t wrong) {
  AccuracyResult a;
  a.task = "gsm8k";
  a.n = static_cast<int64_t>(n);
  a.value = value;
  for (size_t i = 0; i < n; ++i)
    a.items["doc" + std::to_string(i)] = i < first_wrong || i >= first_wrong + wrong;
  return a;
}

TEST(AccuracyGateTest, PairedDropWithManyDiscordantItemsIsARegression) {
  AccuracyResult base = Items(0.9, 1000, 0, 100);      // docs 0..99 wrong
  AccuracyResult tonight = Items(0.86, 1000, 0, 140);  // docs 0..139 wrong: b = 40, c = 0
  MetricVerdict v = JudgeAccuracy(tonight, &base, VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kRegression);
  EXPECT_LT(v.p_value, 1e-6);
  EXPECT_NE(v.rule.find("McNemar b = 40, c = 0"), std::string::npos) << v.rule;
}

TEST(AccuracyGateTest, NightlyWobbleIsUnchanged) {
  // 0.7 points down, but as many items flipped each way as not: no evidence.
  AccuracyResult base = Items(0.900, 1000, 0, 100);
  AccuracyResult tonight = Items(0.893, 1000, 93, 107);  // b = 100, c = 93
  MetricVerdict v = JudgeAccuracy(tonight, &base, VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kUnchanged);
}

TEST(AccuracyGateTest, WithoutItemsUsesTwoProportions) {
  AccuracyResult base{"gsm8k", 0.90, 1319, std::nullopt, {}};
  AccuracyResult tonight{"gsm8k", 0.80, 1319, std::nullopt, {}};
  MetricVerdict v = JudgeAccuracy(tonight, &base, VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kRegression);
  EXPECT_EQ(v.confirmed_by, Confirmation::kTwoProportion);
  EXPECT_NE(v.rule.find("two-proportion"), std::string::npos);
}

TEST(AccuracyGateTest, BelowTheFloorIsARegressionEvenWithoutHistory) {
  AccuracyResult tonight{"gsm8k", 0.5, 1319, 0.7, {}};
  MetricVerdict v = JudgeAccuracy(tonight, nullptr, VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kRegression);
  EXPECT_EQ(v.confirmed_by, Confirmation::kFloor) << "a floor is a gate, not a comparison";
  tonight.floor = 0.4;
  EXPECT_EQ(JudgeAccuracy(tonight, nullptr, VerdictSettings{}).outcome,
            MetricOutcome::kInsufficient);
}

}  // namespace
}  // namespace servebench::verdict
