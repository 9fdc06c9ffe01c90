// Issue 7 "Done when": on seeded synthetic histories (2 % CV per run, 30 nights,
// 5 % step changes injected) the rule catches a 5 % drop within two nights in at
// least 95 % of series and raises a false alarm on at most 2 % of noise-only
// series-nights. bench/verdict prints the same rates for more series.
#include <gtest/gtest.h>

#include "verdict/synthetic_history.h"

namespace servebench::verdict {
namespace {

TEST(DetectionTest, FivePercentStepIsCaughtWithinTwoNightsAndNoiseRarelyAlarms) {
  SyntheticSpec spec;  // 30 nights, 2 % CV per run, 3 repetitions, -5 % steps
  DetectionStudy st = RunDetectionStudy(/*seed=*/20261129, /*series=*/600, spec, VerdictSettings{});
  RecordProperty("detection_rate", std::to_string(st.DetectionRate()));
  RecordProperty("false_alarm_rate", std::to_string(st.FalseAlarmRate()));
  std::printf(
      "detection within two nights: %.2f %% of %zu series; false alarms: %.2f %% of %zu "
      "series-nights (false improvements %.2f %%)\n",
      100 * st.DetectionRate(), st.step_series, 100 * st.FalseAlarmRate(), st.judged_series_nights,
      100 * st.FalseImprovementRate());
  EXPECT_GE(st.DetectionRate(), 0.95);
  EXPECT_LE(st.FalseAlarmRate(), 0.02);
  EXPECT_GT(st.judged_series_nights, 600u * 20);
}

TEST(DetectionTest, StudyIsDeterministicForASeed) {
  SyntheticSpec spec;
  DetectionStudy a = RunDetectionStudy(7, 20, spec, VerdictSettings{});
  DetectionStudy b = RunDetectionStudy(7, 20, spec, VerdictSettings{});
  EXPECT_EQ(a.detected_within_two, b.detected_within_two);
  EXPECT_EQ(a.false_regressions, b.false_regressions);
}

}  // namespace
}  // namespace servebench::verdict
