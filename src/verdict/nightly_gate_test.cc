#include "verdict/nightly_gate.h"

#include <gtest/gtest.h>

namespace servebench::verdict {
namespace {

const MetricSpec& Tput() { return *FindMetric("tput_per_gpu"); }

MetricSeries Values(std::vector<double> v) {
  MetricSeries s;
  s.values = std::move(v);
  return s;
}

// regression.md §2 worked example: last 7 nights 1000 ... 1001 -> B = 1001;
// tonight 970 is -3.10 %, beyond the 2.5 % floor: flagged, but one night is only
// suspect until a second confirms it.
TEST(NightlyGateTest, WorkedExampleFlagsTonightAsSuspect) {
  VerdictSettings s;
  s.baseline_nights = 7;  // the worked example's K
  MetricVerdict v =
      GateMetric(Tput(), Values({1000, 1012, 995, 1005, 990, 1008, 1001, 1003, 998, 970}), s);
  EXPECT_EQ(v.outcome, MetricOutcome::kUnchanged);
  EXPECT_TRUE(v.suspect);
  EXPECT_DOUBLE_EQ(v.baseline, 1001);
  EXPECT_NEAR(v.worse_rel, -0.03097, 1e-4);
  EXPECT_DOUBLE_EQ(v.threshold_rel, std::max(0.025, 3 * v.noise_rel));
  EXPECT_DOUBLE_EQ(v.threshold_rel, 0.025);
}

TEST(NightlyGateTest, SecondFlaggedNightConfirmsByPersistence) {
  MetricVerdict v = GateMetric(
      Tput(), Values({1000, 1012, 995, 1005, 990, 1008, 1001, 998, 970, 968}), VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kRegression);
  EXPECT_NE(v.rule.find("persistence"), std::string::npos) << v.rule;
}

TEST(NightlyGateTest, ImprovementsMirrorRegressions) {
  MetricVerdict v = GateMetric(
      Tput(), Values({1000, 1012, 995, 1005, 990, 1008, 1001, 998, 1040, 1045}), VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kImprovement);
}

TEST(NightlyGateTest, LowerIsBetterForLatency) {
  const MetricSpec& ttft = *FindMetric("median_ttft_ms");
  MetricVerdict v =
      GateMetric(ttft, Values({100, 101, 99, 100, 102, 98, 100, 100, 108, 109}), VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kRegression);
  EXPECT_LT(v.worse_rel, 0);
  EXPECT_GT(v.change_rel, 0);
}

TEST(NightlyGateTest, TooFewNightsIsInsufficientNeverGreen) {
  MetricVerdict v = GateMetric(Tput(), Values({1000, 1001, 999, 700}), VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kInsufficient);
}

TEST(NightlyGateTest, NoisyHistoryRaisesTheThreshold) {
  // ~4 % nightly noise: a 5 % dip is inside 3 sigma.
  MetricVerdict v = GateMetric(
      Tput(), Values({1000, 1032, 972, 1045, 985, 1040, 958, 1012, 1036, 962, 1008, 950}),
      VerdictSettings{});
  EXPECT_GT(v.threshold_rel, 0.05);
  EXPECT_EQ(v.outcome, MetricOutcome::kUnchanged);
}

TEST(NightlyGateTest, RerunWithEightRawRunsConfirmsInOneNight) {
  MetricSeries s = Values({1000, 1012, 995, 1005, 990, 1008, 1001, 1003, 998, 950});
  for (size_t i = 0; i + 1 < s.values.size(); ++i) {
    s.raw_runs.push_back({s.values[i] - 4, s.values[i], s.values[i] + 4});
  }
  s.raw_runs.push_back({945, 948, 950, 951, 952, 949, 953, 947});
  MetricVerdict v = GateMetric(Tput(), s, VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kRegression);
  EXPECT_NE(v.rule.find("rerun"), std::string::npos) << v.rule;
  EXPECT_LE(v.p_value, 0.01);
}

TEST(NightlyGateTest, RerunThatOverlapsTheBaselineIsNoise) {
  MetricSeries s = Values({1000, 1012, 995, 1005, 990, 1008, 1001, 1003, 998, 960});
  for (size_t i = 0; i + 1 < s.values.size(); ++i) {
    s.raw_runs.push_back({s.values[i] - 30, s.values[i], s.values[i] + 30});
  }
  s.raw_runs.push_back({960, 1010, 990, 1030, 980, 1000, 970, 1020});
  MetricVerdict v = GateMetric(Tput(), s, VerdictSettings{});
  EXPECT_EQ(v.outcome, MetricOutcome::kUnchanged);
  EXPECT_FALSE(v.suspect);
}

}  // namespace
}  // namespace servebench::verdict
