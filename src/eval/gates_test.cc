#include "eval/gates.h"

#include <gtest/gtest.h>

#include "eval/extraction.h"
#include "eval/synthetic.h"
#include "sim/answer_oracle.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;

// ---- McNemar: the hand-worked table of shared reference evals.md §5 (N = 1319,
// alpha 0.01, max drop 1.0 point). Exact p by hand: 2 * sum_{i<=min} C(b+c, i) / 2^(b+c).
TEST(McNemarTest, MatchesHandWorkedTable) {
  struct Row {
    size_t b, c;
    double drop, p, chi2;
    Verdict verdict;
  };
  const Row rows[] = {{30, 10, 1.52, 0.0022, 9.03, Verdict::kFail},
                      {25, 10, 1.14, 0.0167, 5.60, Verdict::kFail},
                      {20, 12, 0.61, 0.215, 1.53, Verdict::kPass},
                      {14, 6, 0.61, 0.115, 2.45, Verdict::kPass}};
  for (const Row& row : rows) {
    SCOPED_TRACE(testing::Message() << "b=" << row.b << " c=" << row.c);
    McNemarReport report = McNemarGate(PairedCounts{1319, row.b, row.c, 0}, 0.01, 1.0);
    EXPECT_NEAR(report.drop_points, row.drop, 0.005);
    EXPECT_NEAR(report.p_value, row.p, row.p * 0.03);
    EXPECT_NEAR(report.chi2, row.chi2, 0.01);
    EXPECT_EQ(report.verdict, row.verdict);
  }
}

TEST(McNemarTest, SmallExactValues) {
  // b=5, c=0: 2 * (1/32) = 0.0625. b=c: p = 1 (capped). Nothing discordant: 1.
  EXPECT_DOUBLE_EQ(McNemarExactP(5, 0), 0.0625);
  EXPECT_DOUBLE_EQ(McNemarExactP(7, 7), 1.0);
  EXPECT_DOUBLE_EQ(McNemarExactP(0, 0), 1.0);
  // b=3, c=1: 2 * (1 + 4) / 16 = 0.625.
  EXPECT_DOUBLE_EQ(McNemarExactP(3, 1), 0.625);
}

TEST(McNemarTest, BetterCandidateNeverFails) {
  EXPECT_EQ(McNemarGate(PairedCounts{1319, 2, 60, 0}).verdict, Verdict::kPass);
}

TEST(McNemarTest, NoPairsIsInvalid) {
  EXPECT_EQ(McNemarGate(PairedCounts{}).verdict, Verdict::kInvalid);
}

// Per-document correctness of the sim's arithmetic oracle on synthetic data,
// scored through the real extraction path (flexible-extract).
std::map<size_t, bool> OracleRun(const std::vector<GsmDoc>& docs, uint64_t seed, double rate) {
  auto oracle = sim::AnswerOracle::Create({.error_rate = rate, .seed = seed, .answers_path = ""});
  EXPECT_TRUE(oracle.ok());
  std::map<size_t, bool> correct;
  for (size_t i = 0; i < docs.size(); ++i) {
    auto reply = (*oracle)->Answer("Question: " + docs[i].question + "\nAnswer:");
    correct[i] = reply && ExactMatch(ExtractFlexible(*reply), docs[i].answer);
  }
  return correct;
}

TEST(McNemarTest, FlagsErrorRateRisingFromFiveToFifteenPercent) {
  auto docs = MakeSyntheticGsm(42, 1319);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    // Same seed: the 5% wrong set is inside the 15% one, as a real regression
    // that breaks more answers would be. Different seeds: independent errors.
    for (uint64_t candidate_seed : {seed, seed + 100}) {
      McNemarReport report = McNemarGate(
          PairCorrectness(OracleRun(docs, seed, 0.05), OracleRun(docs, candidate_seed, 0.15)));
      EXPECT_EQ(report.verdict, Verdict::kFail) << json::serialize(ToJson(report));
      EXPECT_LT(report.p_value, 1e-6);
    }
  }
}

TEST(McNemarTest, SameErrorRateFalseAlarmsStayWithinAlpha) {
  // Two independent runs at the same 10% error rate, 20 seed pairs. The test
  // itself (candidate worse with p < alpha) should fire in about alpha/2 of the
  // pairs; at alpha = 0.05 that is 0.5 of 20, and 3 or more has probability ~1%.
  auto docs = MakeSyntheticGsm(7, 1319);
  const double alpha = 0.05;
  int false_alarms = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    PairedCounts counts =
        PairCorrectness(OracleRun(docs, 1000 + seed, 0.10), OracleRun(docs, 2000 + seed, 0.10));
    McNemarReport report = McNemarGate(counts, alpha, /*max_drop_points=*/100);
    if (report.verdict == Verdict::kFail) ++false_alarms;
  }
  EXPECT_LE(false_alarms, 2);
}

// ---- Floor gate over the shipped thresholds file.

Thresholds ShippedThresholds() {
  auto t = LoadThresholds(SERVEBENCH_SOURCE_DIR "/data/evals/thresholds.yaml");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return *t;
}

json::object Results(double strict, double flexible) {
  return json::object{
      {"results",
       json::object{{"gsm8k", json::object{{"alias", "gsm8k"},
                                           {"exact_match,strict-match", strict},
                                           {"exact_match_stderr,strict-match", 0.006},
                                           {"exact_match,flexible-extract", flexible},
                                           {"exact_match_stderr,flexible-extract", 0.006}}}}}};
}

TEST(FloorGateTest, ModelFloorWinsOverDefault) {
  FloorReport report = FloorGate(Results(0.935, 0.95), ShippedThresholds(), "glm5", "gsm8k");
  EXPECT_DOUBLE_EQ(report.floor, 0.94);
  EXPECT_EQ(report.floor_source, "models.glm5.gsm8k");
  EXPECT_EQ(report.verdict, Verdict::kFail);  // strict 0.935 < 0.94
  EXPECT_EQ(report.checks.size(), 2u);        // stderr keys are not checked
}

TEST(FloorGateTest, UnknownModelFallsBackToDefaultThenMinScore) {
  FloorReport report = FloorGate(Results(0.91, 0.92), ShippedThresholds(), "minimaxm3", "gsm8k");
  EXPECT_EQ(report.floor_source, "default.gsm8k");
  EXPECT_EQ(report.verdict, Verdict::kPass);
  FloorReport other = FloorGate(
      json::object{{"results", json::object{{"mmlu", json::object{{"exact_match,none", 0.86}}}}}},
      ShippedThresholds(), "x", "mmlu");
  EXPECT_EQ(other.floor_source, "min_score");
  EXPECT_DOUBLE_EQ(other.floor, 0.85);
  EXPECT_EQ(other.verdict, Verdict::kPass);
}

TEST(FloorGateTest, EveryFilterMustPass) {
  EXPECT_EQ(FloorGate(Results(0.80, 0.95), ShippedThresholds(), "dsr1", "gsm8k").verdict,
            Verdict::kFail);
  EXPECT_EQ(FloorGate(Results(0.95, 0.80), ShippedThresholds(), "dsr1", "gsm8k").verdict,
            Verdict::kFail);
  EXPECT_EQ(FloorGate(Results(0.95, 0.95), ShippedThresholds(), "dsr1", "gsm8k").verdict,
            Verdict::kPass);
}

TEST(FloorGateTest, NothingCheckedFails) {
  FloorReport report =
      FloorGate(json::object{{"results", json::object{}}}, ShippedThresholds(), "dsr1", "gsm8k");
  EXPECT_EQ(report.verdict, Verdict::kFail);
  EXPECT_TRUE(report.checks.empty());
}

TEST(FloorGateTest, FailedSamplesFailTheGate) {
  json::object results = Results(0.99, 0.99);
  results["servebench"] = json::object{{"n_failed", 3}, {"interrupted", false}};
  EXPECT_EQ(FloorGate(results, ShippedThresholds(), "dsr1", "gsm8k").verdict, Verdict::kFail);
}

TEST(FloorGateTest, BadThresholdsFileIsExplained) {
  EXPECT_FALSE(ParseThresholds("default: {gsm8k: high}", "t.yaml").ok());
  EXPECT_FALSE(ParseThresholds("default: {gsm8k: 1.5}", "t.yaml").ok());
  EXPECT_FALSE(ParseThresholds("defaults: {gsm8k: 0.9}", "t.yaml").ok());
  auto bad = ParseThresholds("default: [", "t.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.yaml:"), std::string::npos);
}

TEST(FloorGateTest, ThresholdProblemsAreLocatedAndReportedAtOnce) {
  auto bad = ParseThresholds("default: {gsm8k: 1.5}\nmodels:\n  dsr1: {gsm8k: high}\n", "t.yaml");
  ASSERT_FALSE(bad.ok());
  const std::string m = bad.status().message();
  EXPECT_NE(m.find("t.yaml:1:18: default.gsm8k: is 1.5; a floor must be in [0, 1]"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("t.yaml:3:17: models.dsr1.gsm8k: is 'high' (string); expected a number"),
            std::string::npos)
      << m;
}

TEST(FloorGateTest, ModelPrefixIsFirstDashComponent) {
  EXPECT_EQ(ModelPrefixOf("dsr1-fp8-b200"), "dsr1");
  EXPECT_EQ(ModelPrefixOf("org/GLM5.1-FP8"), "glm5.1");
}

TEST(ProtocolGateTest, DifferentTaskHashesAreNotComparable) {
  json::object a{{"task_hashes", json::object{{"gsm8k", "abc"}}}};
  json::object b{{"task_hashes", json::object{{"gsm8k", "abd"}}}};
  EXPECT_EQ(ProtocolGate(a, a, "gsm8k").verdict, Verdict::kPass);
  EXPECT_EQ(ProtocolGate(a, b, "gsm8k").verdict, Verdict::kInvalid);
  EXPECT_EQ(ProtocolGate(a, json::object{}, "gsm8k").verdict, Verdict::kInvalid);
}

// ---- Greedy equivalence.

TEST(EquivalenceTest, FindsInjectedDivergenceAtItsPosition) {
  std::map<size_t, std::string> reference;
  std::map<size_t, std::string> candidate;
  for (size_t i = 0; i < 100; ++i) {
    reference[i] = "Step one. Step two gives " + std::to_string(i) + ".\n#### " + std::to_string(i);
    candidate[i] = reference[i];
  }
  candidate[37][19] = 'X';       // inside "Step two", byte 19
  candidate[80] += " and more";  // longer, but starts with the reference: matched
  EquivalenceReport report = EquivalenceGate(reference, candidate, 0.90);
  EXPECT_EQ(report.n, 100u);
  EXPECT_EQ(report.identical, 98u);
  EXPECT_EQ(report.matched, 99u);
  ASSERT_EQ(report.divergent.size(), 2u);
  EXPECT_EQ(report.divergent[0].doc_id, 37u);
  EXPECT_EQ(report.divergent[0].first_divergence, 19u);
  EXPECT_FALSE(report.divergent[0].matched);
  EXPECT_EQ(report.divergent[1].doc_id, 80u);
  EXPECT_TRUE(report.divergent[1].matched);
  EXPECT_EQ(report.verdict, Verdict::kPass);
}

TEST(EquivalenceTest, VerdictBands) {
  std::map<size_t, std::string> reference;
  for (size_t i = 0; i < 100; ++i) reference[i] = "a";
  auto with_mismatches = [&](size_t k) {
    auto candidate = reference;
    for (size_t i = 0; i < k; ++i) candidate[i] = "b";
    return EquivalenceGate(reference, candidate, 0.90).verdict;
  };
  EXPECT_EQ(with_mismatches(10), Verdict::kPass);  // 90%
  EXPECT_EQ(with_mismatches(11), Verdict::kWarn);  // 89%
  EXPECT_EQ(with_mismatches(33), Verdict::kWarn);  // 67 > int(66)
  EXPECT_EQ(with_mismatches(34), Verdict::kFail);  // 66 is not > 66
}

TEST(EquivalenceTest, FirstDivergenceOfPrefixIsShorterLength) {
  EXPECT_EQ(FirstDivergence("abc", "abcd"), 3u);
  EXPECT_EQ(FirstDivergence("abc", "abc"), 3u);
  EXPECT_EQ(FirstDivergence("xbc", "abc"), 0u);
}

}  // namespace
}  // namespace servebench::eval
