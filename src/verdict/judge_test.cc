#include "verdict/judge.h"

#include <gtest/gtest.h>

#include "common/exit_codes.h"
#include "verdict/synthetic_history.h"

namespace servebench::verdict {
namespace {

// A quiet series: throughput 1000 +- a fixed wiggle, `nights` nights.
SeriesHistory Quiet(const std::string& id, size_t nights) {
  static const double kWiggle[] = {0.004, -0.006, 0.008, -0.002, 0.005, -0.007, 0.001, -0.003};
  SeriesHistory h;
  h.series_id = id;
  h.label = id;
  for (size_t i = 0; i < nights; ++i) {
    Observation o;
    o.build = {"img-" + std::to_string(i), "c" + std::to_string(i), SyntheticDate(i)};
    o.metrics["tput_per_gpu"] = 1000 * (1 + kWiggle[i % 8]);
    o.metrics["median_ttft_ms"] = 100 * (1 - kWiggle[(i + 3) % 8]);
    h.nights.push_back(o);
  }
  return h;
}

TEST(JudgeTest, QuietSeriesIsUnchanged) {
  SeriesVerdict v = JudgeSeries(Quiet("s", 20), SyntheticDate(19), VerdictSettings{});
  EXPECT_EQ(v.verdict, Verdict::kUnchanged);
  EXPECT_EQ(v.build.commit, "c19");
}

TEST(JudgeTest, FirstNightIsNewAndShortHistoryIsNew) {
  EXPECT_EQ(JudgeSeries(Quiet("s", 1), SyntheticDate(0), VerdictSettings{}).verdict, Verdict::kNew);
  EXPECT_EQ(JudgeSeries(Quiet("s", 3), SyntheticDate(2), VerdictSettings{}).verdict, Verdict::kNew);
}

TEST(JudgeTest, BlockedSeriesThatFailsIsBlockedNeverRegression) {
  SeriesHistory h = Quiet("s", 20);
  h.nights.back().status = NightStatus::kBlocked;
  h.nights.back().reason = "needs vLLM#123; failed: engine-died";
  h.nights.back().metrics.clear();
  SeriesVerdict v = JudgeSeries(h, SyntheticDate(19), VerdictSettings{});
  EXPECT_EQ(v.verdict, Verdict::kBlocked);
  EXPECT_NE(v.note.find("vLLM#123"), std::string::npos);
  // Even when the blocked record still carries terrible numbers.
  h.nights.back().metrics["tput_per_gpu"] = 10;
  EXPECT_EQ(JudgeSeries(h, SyntheticDate(19), VerdictSettings{}).verdict, Verdict::kBlocked);
}

TEST(JudgeTest, UnblockedWhenItPassesAfterBeingBlocked) {
  SeriesHistory h = Quiet("s", 20);
  h.nights[18].status = NightStatus::kBlocked;
  h.nights[18].reason = "known bug";
  EXPECT_EQ(JudgeSeries(h, SyntheticDate(19), VerdictSettings{}).verdict, Verdict::kUnblocked);
}

TEST(JudgeTest, FailureAfterPassingIsARegressionAndWithoutPassingIsInvalid) {
  SeriesHistory h = Quiet("s", 20);
  h.nights.back().status = NightStatus::kFailed;
  h.nights.back().reason = "engine-died";
  SeriesVerdict v = JudgeSeries(h, SyntheticDate(19), VerdictSettings{});
  EXPECT_EQ(v.verdict, Verdict::kRegression);
  EXPECT_NE(v.note.find("engine-died"), std::string::npos);
  for (Observation& o : h.nights) o.status = NightStatus::kFailed;
  EXPECT_EQ(JudgeSeries(h, SyntheticDate(19), VerdictSettings{}).verdict, Verdict::kInvalid);
}

TEST(JudgeTest, InvalidNightsAreNeverCompared) {
  SeriesHistory h = Quiet("s", 20);
  h.nights.back().status = NightStatus::kInvalid;
  h.nights.back().reason = "failed_requests";
  h.nights.back().metrics["tput_per_gpu"] = 1;
  EXPECT_EQ(JudgeSeries(h, SyntheticDate(19), VerdictSettings{}).verdict, Verdict::kInvalid);
  // Invalid history nights do not enter the baseline: a wild invalid night 18
  // leaves night 19 unchanged.
  SeriesHistory g = Quiet("s", 20);
  g.nights[18].status = NightStatus::kInvalid;
  g.nights[18].metrics["tput_per_gpu"] = 5;
  EXPECT_EQ(JudgeSeries(g, SyntheticDate(19), VerdictSettings{}).verdict, Verdict::kUnchanged);
}

TEST(JudgeTest, Stage0RefusesMissingBuildIdentityWhenRequired) {
  SeriesHistory h = Quiet("s", 20);
  h.nights.back().build.commit.clear();
  VerdictSettings s;
  EXPECT_EQ(JudgeSeries(h, SyntheticDate(19), s).verdict, Verdict::kUnchanged);
  s.require_build_identity = true;
  EXPECT_EQ(JudgeSeries(h, SyntheticDate(19), s).verdict, Verdict::kInvalid);
}

TEST(JudgeTest, SeriesThatStopsReportingIsMissingTheFirstNight) {
  std::vector<SeriesHistory> hs{Quiet("a", 20), Quiet("b", 19)};  // b stops after night 18
  StatusOr<Report> r = Judge(hs, {}, "", VerdictSettings{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->date, SyntheticDate(19));
  ASSERT_EQ(r->verdicts.size(), 2u);
  EXPECT_EQ(r->verdicts[0].series_id, "b");
  EXPECT_EQ(r->verdicts[0].verdict, Verdict::kMissing);
  EXPECT_NE(r->verdicts[0].note.find(SyntheticDate(18)), std::string::npos);
  EXPECT_EQ(r->ExitCode(), 0);
}

TEST(JudgeTest, ExpectedButNeverReportedIsMissing) {
  StatusOr<Report> r = Judge({Quiet("a", 20)}, {"a", "ghost"}, "", VerdictSettings{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Count(Verdict::kMissing), 1u);
  EXPECT_EQ(r->verdicts[0].series_id, "ghost");
}

TEST(JudgeTest, StepIsARegressionWithItsOwnExitCodeAndWorstFirst) {
  std::vector<SeriesHistory> hs{Quiet("quiet", 20), Quiet("slow", 20), Quiet("slower", 20)};
  for (size_t i = 18; i < 20; ++i) hs[1].nights[i].metrics["tput_per_gpu"] *= 0.95;
  for (size_t i = 18; i < 20; ++i) hs[2].nights[i].metrics["tput_per_gpu"] *= 0.90;
  StatusOr<Report> r = Judge(hs, {}, SyntheticDate(19), VerdictSettings{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Count(Verdict::kRegression), 2u);
  EXPECT_EQ(r->verdicts[0].series_id, "slower");
  EXPECT_EQ(r->verdicts[1].series_id, "slow");
  EXPECT_EQ(r->ExitCode(), kExitRegression) << "not kExitInvalidInput: a slowdown is no typo";
  EXPECT_NE(kExitRegression, kExitInvalidInput);
}

// A reasoning model that thinks longer: TTFT (the first reasoning token) holds, the
// time to first visible output grows 20 % on the last two nights.
TEST(JudgeTest, LongerThinkingIsARegressionOfTimeToFirstOutputAlone) {
  SeriesHistory h = Quiet("reasoning", 20);
  for (size_t i = 0; i < h.nights.size(); ++i) {
    const double ttft = h.nights[i].metrics.at("median_ttft_ms");
    h.nights[i].metrics["median_ttfo_ms"] = (ttft + 400) * (i >= 18 ? 1.2 : 1.0);
  }
  SeriesVerdict v = JudgeSeries(h, SyntheticDate(19), VerdictSettings{});
  EXPECT_EQ(v.verdict, Verdict::kRegression);
  for (const MetricVerdict& m : v.metrics) {
    const bool ttfo = m.metric == "median_ttfo_ms";
    EXPECT_EQ(m.outcome == MetricOutcome::kRegression, ttfo) << m.metric;
    if (ttfo) {
      EXPECT_TRUE(m.counted);
    }
  }
}

TEST(JudgeTest, AccuracyBelowItsFloorAloneIsAFailedGate) {
  SeriesHistory h = Quiet("evals", 20);
  for (size_t i = 0; i < 20; ++i) {
    h.nights[i].accuracy.push_back({"gsm8k", i == 19 ? 0.5 : 0.9, 1319, 0.8, {}});
  }
  StatusOr<Report> r = Judge({h}, {}, "", VerdictSettings{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->Count(Verdict::kRegression), 1u);
  EXPECT_TRUE(r->verdicts[0].GateFailedOnly());
  EXPECT_EQ(r->ExitCode(), kExitGateFailed);
  // A slowdown as well: the regression's code wins.
  for (size_t i = 18; i < 20; ++i) h.nights[i].metrics["tput_per_gpu"] *= 0.9;
  r = Judge({h}, {}, "", VerdictSettings{});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->verdicts[0].GateFailedOnly());
  EXPECT_EQ(r->ExitCode(), kExitRegression);
}

TEST(JudgeTest, ConfirmationIsAFieldNotText) {
  SeriesHistory h = Quiet("s", 20);
  for (size_t i = 18; i < 20; ++i) h.nights[i].metrics["tput_per_gpu"] *= 0.9;
  SeriesVerdict v = JudgeSeries(h, SyntheticDate(19), VerdictSettings{});
  ASSERT_EQ(v.verdict, Verdict::kRegression);
  EXPECT_EQ(v.metrics[0].metric, "tput_per_gpu");
  EXPECT_EQ(v.metrics[0].confirmed_by, Confirmation::kPersistence) << v.metrics[0].rule;
}

TEST(JudgeTest, ChangePointNamesTheFirstBadBuildAndRebaselines) {
  SeriesHistory h = Quiet("s", 30);
  for (size_t i = 20; i < 30; ++i) h.nights[i].metrics["tput_per_gpu"] *= 0.9;
  // Night 21: the gate confirms and names build 20 as the first that moved.
  SeriesVerdict v = JudgeSeries(h, SyntheticDate(21), VerdictSettings{});
  EXPECT_EQ(v.verdict, Verdict::kRegression);
  EXPECT_NE(v.metrics[0].rule.find("first moved with img-20 c20"), std::string::npos)
      << v.metrics[0].rule;
  EXPECT_TRUE(v.change_points.empty());  // a 2-night level is too short for Stage 2
  // Night 23: Stage 2 names build 20 as first bad, c19 as last good.
  v = JudgeSeries(h, SyntheticDate(23), VerdictSettings{});
  ASSERT_FALSE(v.change_points.empty());
  EXPECT_EQ(v.change_points[0].first_bad.commit, "c20");
  EXPECT_EQ(v.change_points[0].last_good.commit, "c19");
  // Night 29: the new level is the baseline now; reported once, not forever.
  EXPECT_EQ(JudgeSeries(h, SyntheticDate(29), VerdictSettings{}).verdict, Verdict::kUnchanged);
}

TEST(JudgeTest, AccuracyDropThatPersistsStaysARegression) {
  SeriesHistory h = Quiet("s", 10);
  for (size_t i = 0; i < h.nights.size(); ++i) {
    h.nights[i].accuracy.push_back({"gsm8k", i >= 8 ? 0.80 : 0.90, 1319, std::nullopt, {}});
  }
  // Night 8 drops 10 points; night 9 repeats 0.80, and is compared with night 7
  // (the last good night), not with night 8.
  SeriesVerdict v = JudgeSeries(h, SyntheticDate(9), VerdictSettings{});
  EXPECT_EQ(v.verdict, Verdict::kRegression);
  const MetricVerdict& acc = v.metrics.back();
  EXPECT_EQ(acc.metric, "accuracy:gsm8k");
  EXPECT_DOUBLE_EQ(acc.baseline, 0.90);
}

TEST(JudgeTest, UnknownDateIsRefusedWithTheRange) {
  StatusOr<Report> r = Judge({Quiet("a", 3)}, {}, "1999-01-01", VerdictSettings{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("2026-01-01 .. 2026-01-03"), std::string::npos)
      << r.status().message();
}

TEST(JudgeTest, CurvesAreJudgedFromTheirPoints) {
  // Two concurrencies of one configuration; on the last two nights the high
  // concurrency point loses 10 % throughput: the curve's AUC drops.
  std::vector<SeriesHistory> hs;
  for (int c : {1, 64}) {
    SeriesHistory h = Quiet("c" + std::to_string(c), 20);
    h.curve_id = "cfg";
    h.curve_label = "cfg";
    for (size_t i = 0; i < h.nights.size(); ++i) {
      Observation& o = h.nights[i];
      o.metrics["median_intvty"] = c == 1 ? 100 : 20;
      o.metrics["tput_per_gpu"] = (c == 1 ? 200 : 3000) * (i >= 18 && c == 64 ? 0.9 : 1.0) *
                                  o.metrics["tput_per_gpu"] / 1000;
    }
    hs.push_back(h);
  }
  StatusOr<Report> r = Judge(hs, {}, "", VerdictSettings{});
  ASSERT_TRUE(r.ok());
  const SeriesVerdict* curve = nullptr;
  for (const SeriesVerdict& v : r->verdicts) {
    if (v.kind == "curve") curve = &v;
  }
  ASSERT_NE(curve, nullptr);
  EXPECT_EQ(curve->verdict, Verdict::kRegression);
  bool auc = false;
  for (const MetricVerdict& m : curve->metrics)
    auc |= m.metric == "pareto_auc" && m.outcome == MetricOutcome::kRegression;
  EXPECT_TRUE(auc);
}

}  // namespace
}  // namespace servebench::verdict
