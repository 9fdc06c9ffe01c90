// InferenceX's own test vectors (reference power.md §5, and the cases of its
// utils/test_aggregate_power.py) through servebench's implementation of the rule:
// the same samples give InferenceX's numbers and InferenceX's reason codes.
#include "telemetry/energy_rule.h"

#include <gtest/gtest.h>

namespace servebench::telemetry {
namespace {

std::vector<PowerRow> Constant(double from, double to, double step, int gpus, double watts) {
  std::vector<PowerRow> rows;
  for (double t = from; t <= to + 1e-9; t += step) {
    for (int g = 0; g < gpus; ++g) rows.push_back({t, std::to_string(g), watts});
  }
  return rows;
}

// InferenceX's _write_constant_window_samples: start − 1, every second, end + 1.
std::vector<PowerRow> ConstantWindow(double start, double end, int gpus, double watts) {
  std::vector<PowerRow> rows = Constant(start, end, 1.0, gpus, watts);
  for (int g = 0; g < gpus; ++g) {
    rows.push_back({start - 1, std::to_string(g), watts});
    rows.push_back({end + 1, std::to_string(g), watts});
  }
  return rows;
}

TEST(EnergyRuleTest, ExampleAEdgesAreInterpolatedPerGpu) {
  std::vector<PowerRow> rows;
  std::vector<std::pair<double, double>> gpu0 = {{-1, 100}, {1, 140},   {3.5, 190},
                                                 {6, 240},  {8.5, 290}, {11, 340}};
  for (auto [t, w] : gpu0) {
    rows.push_back({t, "0", w});
    rows.push_back({t, "1", w + 100});
  }
  Integration r = IntegrateWindow(rows, 0, 10, 2);
  EXPECT_TRUE(r.valid);
  EXPECT_TRUE(r.reasons.empty());
  EXPECT_DOUBLE_EQ(r.energy_j.at("0"), 2200.0);
  EXPECT_DOUBLE_EQ(r.energy_j.at("1"), 3200.0);
  EXPECT_DOUBLE_EQ(*r.total_energy_j, 5400.0);
  EXPECT_DOUBLE_EQ(*r.avg_total_power_w, 540.0);
  EXPECT_DOUBLE_EQ(*r.avg_power_w, 270.0);
}

TEST(EnergyRuleTest, ExampleBWholeContractEightGpus) {
  Integration r = IntegrateWindow(ConstantWindow(0, 10, 8, 500), 0, 10, 8);
  ASSERT_TRUE(r.valid);
  EXPECT_DOUBLE_EQ(*r.total_energy_j, 40000.0);
  EXPECT_DOUBLE_EQ(*r.avg_total_power_w, 4000.0);
  EXPECT_DOUBLE_EQ(*r.avg_power_w, 500.0);
  std::optional<EnergyPerWork> e = DivideEnergy(*r.total_energy_j, 10, 10000, 2000);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->joules_per_successful_query, 4000.0);
  EXPECT_DOUBLE_EQ(e->joules_per_input_token, 4.0);
  EXPECT_DOUBLE_EQ(e->joules_per_output_token, 20.0);
  EXPECT_DOUBLE_EQ(RoundLikeInferenceX("joules_per_total_token", e->joules_per_total_token),
                   3.333333);
  // Tokens per joule: total 0.3 (= tput_per_gpu 150 / 500 W), output 0.05.
  EXPECT_DOUBLE_EQ(12000.0 / *r.total_energy_j, 0.3);
  EXPECT_DOUBLE_EQ(2000.0 / *r.total_energy_j, 0.05);
}

TEST(EnergyRuleTest, ExampleCAnEightSecondGapIsSamplingGapExceeded) {
  std::vector<PowerRow> rows = {{-1, "0", 500}, {1, "0", 500}, {9, "0", 500}, {11, "0", 500}};
  Integration r = IntegrateWindow(rows, 0, 10, 1);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"sampling_gap_exceeded"});
  EXPECT_EQ(r.device_issues.at("0"), std::vector<std::string>{"sampling_gap_exceeded"});
  EXPECT_DOUBLE_EQ(r.max_gap_s.at("0"), 8.0);
}

TEST(EnergyRuleTest, ExampleCAGapOfExactlyThreeSecondsPasses) {
  std::vector<PowerRow> rows;
  for (double t : {20.0, 21.0, 24.0, 25.0}) {
    rows.push_back({t, "0", 400});
    rows.push_back({t, "1", 600});
  }
  Integration r = IntegrateWindow(rows, 21, 24, 2);
  ASSERT_TRUE(r.valid) << r.reasons.size();
  EXPECT_DOUBLE_EQ(r.max_gap_s.at("0"), 3.0);
  EXPECT_DOUBLE_EQ(*r.total_energy_j, 3000.0);
  std::optional<EnergyPerWork> e = DivideEnergy(*r.total_energy_j, 2, 300, 150);
  EXPECT_DOUBLE_EQ(e->joules_per_successful_query, 1500.0);
  EXPECT_DOUBLE_EQ(e->joules_per_input_token, 10.0);
  EXPECT_DOUBLE_EQ(e->joules_per_output_token, 20.0);
  EXPECT_DOUBLE_EQ(RoundLikeInferenceX("joules_per_total_token", e->joules_per_total_token),
                   6.666667);
}

TEST(EnergyRuleTest, ExampleDDisaggregatedTotals) {
  std::vector<PowerRow> rows = ConstantWindow(0, 60, 4, 0);
  for (PowerRow& r : rows) r.power_w = (r.gpu == "0" || r.gpu == "1") ? 400.0 : 300.0;
  Integration r = IntegrateWindow(rows, 0, 60, 4);
  ASSERT_TRUE(r.valid);
  EXPECT_DOUBLE_EQ(*r.total_energy_j, 84000.0);
  EXPECT_DOUBLE_EQ(*r.avg_total_power_w, 1400.0);
  EXPECT_DOUBLE_EQ(*r.avg_power_w, 350.0);
  std::optional<EnergyPerWork> e = DivideEnergy(*r.total_energy_j, 8, 32768, 4096);
  EXPECT_DOUBLE_EQ(e->joules_per_successful_query, 10500.0);
  EXPECT_DOUBLE_EQ(RoundLikeInferenceX("joules_per_output_token", e->joules_per_output_token),
                   20.507812);
  EXPECT_DOUBLE_EQ(RoundLikeInferenceX("joules_per_input_token", e->joules_per_input_token),
                   2.563477);
  EXPECT_DOUBLE_EQ(RoundLikeInferenceX("joules_per_total_token", e->joules_per_total_token),
                   2.278646);
  EXPECT_DOUBLE_EQ(r.energy_j.at("0") + r.energy_j.at("1"), 48000.0);
  EXPECT_DOUBLE_EQ(r.energy_j.at("2") + r.energy_j.at("3"), 36000.0);
}

TEST(EnergyRuleTest, ExampleEAccumulatorAgreesAt500WattsAndDisagreesAt400) {
  std::vector<PowerRow> at500 = Constant(0, 10, 1, 1, 500);
  AccumulatorCheck ok = CrossCheckAccumulator({{"0", 1'000'000}}, {{"0", 1'005'000}}, at500);
  EXPECT_TRUE(ok.available);
  EXPECT_DOUBLE_EQ(ok.accumulator_delta_j, 5000.0);
  EXPECT_DOUBLE_EQ(ok.integrated_stream_j, 5000.0);
  EXPECT_DOUBLE_EQ(*ok.relative_error, 0.0);
  EXPECT_TRUE(ok.within_tolerance);
  EXPECT_DOUBLE_EQ(ok.stream_span_s, 10.0);
  AccumulatorCheck low =
      CrossCheckAccumulator({{"0", 1'000'000}}, {{"0", 1'005'000}}, Constant(0, 10, 1, 1, 400));
  EXPECT_DOUBLE_EQ(low.integrated_stream_j, 4000.0);
  EXPECT_DOUBLE_EQ(*low.relative_error, 0.2);
  EXPECT_FALSE(low.within_tolerance);
}

TEST(EnergyRuleTest, ExampleEWrappedCounterIsANegativeDelta) {
  std::vector<PowerRow> stream = Constant(0, 10, 1, 1, 400);
  for (double t = 0; t <= 10; t += 1) stream.push_back({t, "1", 0.0});
  AccumulatorCheck c = CrossCheckAccumulator({{"0", 1'000'000}, {"1", 2'000'000}},
                                             {{"0", 1'005'000}, {"1", 1'999'000}}, stream);
  EXPECT_EQ(c.negative_delta_gpus, std::vector<std::string>{"1"});
  EXPECT_DOUBLE_EQ(c.accumulator_delta_j, 4000.0);
  EXPECT_DOUBLE_EQ(*c.relative_error, 0.0);
  EXPECT_FALSE(c.within_tolerance);
}

TEST(EnergyRuleTest, AccumulatorLeavesOutGpusMissingFromASnapshot) {
  std::vector<PowerRow> stream = Constant(0, 10, 1, 1, 500);
  for (double t = 0; t <= 10; t += 1) stream.push_back({t, "1", 5000.0});
  AccumulatorCheck c =
      CrossCheckAccumulator({{"0", 1'000'000}, {"1", 3'000'000}}, {{"0", 1'005'000}}, stream);
  EXPECT_EQ(c.unmatched_gpus, std::vector<std::string>{"1"});
  EXPECT_EQ(c.integrated_gpus, std::vector<std::string>{"0"});
  EXPECT_TRUE(c.within_tolerance);
}

TEST(EnergyRuleTest, ZeroAccumulatorDeltaHasNoRelativeError) {
  AccumulatorCheck c =
      CrossCheckAccumulator({{"0", 1e6}}, {{"0", 1e6}}, Constant(0, 10, 1, 1, 500));
  EXPECT_FALSE(c.relative_error.has_value());
  EXPECT_FALSE(c.within_tolerance);
}

TEST(EnergyRuleTest, ObservedCountDifferentFromExpectedIsAMismatch) {
  Integration r = IntegrateWindow(ConstantWindow(0, 10, 2, 500), 0, 10, 4);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"expected_gpu_count_mismatch"});
  EXPECT_EQ(r.observed_gpus.size(), 2u);
}

TEST(EnergyRuleTest, AGpuThatStartsAfterTheWindowStartIsNotBracketed) {
  std::vector<PowerRow> rows;
  for (double t : {-1.0, 1.0, 3.0, 5.0, 7.0, 9.0, 11.0}) rows.push_back({t, "0", 500});
  for (double t : {1.0, 3.0, 5.0, 7.0, 9.0, 11.0}) rows.push_back({t, "1", 500});
  Integration r = IntegrateWindow(rows, 0, 10, 2);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"benchmark_window_not_bracketed"});
  EXPECT_EQ(r.device_issues.size(), 1u);
  EXPECT_EQ(r.device_issues.at("1"), std::vector<std::string>{"benchmark_window_not_bracketed"});
}

TEST(EnergyRuleTest, OneSampleIsInsufficient) {
  Integration r = IntegrateWindow({{5, "0", 500}}, 0, 10, 1);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"insufficient_power_samples"});
}

TEST(EnergyRuleTest, BadRowsFarOutsideTheWindowAreIgnored) {
  std::vector<PowerRow> rows = {{-100, "0", -1.0}, {100, "0", 100.0}, {100, "0", 200.0}};
  for (int t = -1; t < 12; ++t) rows.push_back({static_cast<double>(t), "0", 500});
  Integration r = IntegrateWindow(rows, 0, 10, 1);
  EXPECT_TRUE(r.valid);
  EXPECT_DOUBLE_EQ(*r.total_energy_j, 5000.0);
}

TEST(EnergyRuleTest, NaPowerInsideTheWindowIsInvalidAndAnUnparseableTimestampAnywhere) {
  std::vector<PowerRow> rows;
  for (int t = -1; t < 12; ++t)
    rows.push_back(
        {static_cast<double>(t), "0", t == 5 ? std::nullopt : std::optional<double>(500)});
  EXPECT_EQ(IntegrateWindow(rows, 0, 10, 1).reasons,
            std::vector<std::string>{"invalid_power_sample"});
  rows[6].power_w = 500;
  EXPECT_EQ(IntegrateWindow(rows, 0, 10, 1, kInferenceXMaxGapS, /*bad_timestamps=*/1).reasons,
            std::vector<std::string>{"invalid_timestamp_sample"});
}

TEST(EnergyRuleTest, NaAndZeroTeardownRowsOutsideTheWindowAreCountedNotUsed) {
  std::vector<PowerRow> rows = Constant(-2, 12, 1, 2, 500);
  rows.push_back({11, "0", std::nullopt});
  rows.push_back({11, "1", std::nullopt});
  Integration r = IntegrateWindow(rows, 0, 10, 2);
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(r.boundary_degenerate_rows.at("0"), 1);
  EXPECT_DOUBLE_EQ(*r.total_energy_j, 10000.0);
}

TEST(EnergyRuleTest, AZeroWattTailDoesNotFakeBracketing) {
  std::vector<PowerRow> rows = Constant(-1, 6, 1, 2, 500);
  rows.push_back({11, "0", 0.0});
  rows.push_back({11, "1", 0.0});
  Integration r = IntegrateWindow(rows, 0, 10, 2);
  EXPECT_FALSE(r.valid);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"benchmark_window_not_bracketed"});
  EXPECT_EQ(r.boundary_degenerate_rows.at("1"), 1);
}

TEST(EnergyRuleTest, AZeroWattSampleInsideTheWindowStillIntegrates) {
  std::vector<PowerRow> rows;
  for (int t = -1; t < 12; ++t) rows.push_back({static_cast<double>(t), "0", t == 5 ? 0.0 : 500.0});
  Integration r = IntegrateWindow(rows, 0, 10, 1);
  EXPECT_TRUE(r.valid);
  EXPECT_DOUBLE_EQ(*r.total_energy_j, 4500.0);  // 8 × 500 + 2 × 250
}

TEST(EnergyRuleTest, IntegerSecondTicksThatStopBeforeAFractionalEndAreNotBracketed) {
  // InferenceX's MI355X regression (run 32433563482): ticks stop 4 s before the end.
  double start = 1'787'277'560.155891, end = 1'787'277'609.157497;
  std::vector<double> powers = {259, 255, 263, 264, 256, 254, 259, 259};
  std::vector<PowerRow> rows;
  for (int tick = 1'787'277'555; tick <= 1'787'277'605; ++tick) {
    for (int g = 0; g < 8; ++g)
      rows.push_back({static_cast<double>(tick), std::to_string(g), powers[g]});
  }
  for (int g = 0; g < 8; ++g) rows.push_back({1'787'277'610, std::to_string(g), std::nullopt});
  for (int g = 0; g < 8; ++g) rows.push_back({1'787'277'611, std::to_string(g), 0.0});
  Integration r = IntegrateWindow(rows, start, end, 8);
  EXPECT_EQ(r.reasons, std::vector<std::string>{"benchmark_window_not_bracketed"});
  EXPECT_EQ(r.device_issues.size(), 8u);
  for (int g = 0; g < 8; ++g) EXPECT_EQ(r.boundary_degenerate_rows.at(std::to_string(g)), 2);
}

TEST(EnergyRuleTest, DuplicateTimestampsOfOneGpuAreAveraged) {
  std::vector<PowerRow> rows = ConstantWindow(0, 10, 1, 500);
  rows.push_back({5, "0", 700});  // 500 and 700 at t = 5 → 600
  Integration r = IntegrateWindow(rows, 0, 10, 1);
  EXPECT_DOUBLE_EQ(*r.total_energy_j, 5000.0 + 100.0);  // a 100 W bump over 2 × 1 s / 2
}

TEST(EnergyRuleTest, NoUsableSamplesAndAnEmptyWindow) {
  EXPECT_EQ(IntegrateWindow({}, 0, 10, 1).reasons,
            std::vector<std::string>{"no_usable_power_samples"});
  EXPECT_EQ(IntegrateWindow(ConstantWindow(0, 10, 1, 500), 10, 10, 1).reasons,
            std::vector<std::string>{"invalid_benchmark_window"});
}

TEST(EnergyRuleTest, NumericGpuIdsSortNumerically) {
  std::vector<PowerRow> rows;
  for (const char* g : {"10", "2", "GPU-b", "1"}) {
    for (PowerRow r : ConstantWindow(0, 10, 1, 100)) rows.push_back({r.t_s, g, r.power_w});
  }
  Integration r = IntegrateWindow(rows, 0, 10, std::nullopt);
  EXPECT_EQ(r.observed_gpus, (std::vector<std::string>{"1", "2", "10", "GPU-b"}));
}

TEST(EnergyRuleTest, RoundingFollowsTheKeySuffix) {
  EXPECT_DOUBLE_EQ(RoundLikeInferenceX("avg_power_w", 270.12345), 270.123);
  EXPECT_DOUBLE_EQ(RoundLikeInferenceX("total_gpu_energy_j", 1.23456), 1.235);
  EXPECT_DOUBLE_EQ(RoundLikeInferenceX("joules_per_output_token", 0.6103515625), 0.610352);
}

TEST(EnergyRuleTest, NoDivisionWithoutWork) {
  EXPECT_FALSE(DivideEnergy(1000, 0, 10, 10).has_value());
  EXPECT_FALSE(DivideEnergy(1000, 1, 0, 10).has_value());
  EXPECT_FALSE(DivideEnergy(1000, 1, 10, 0).has_value());
}

}  // namespace
}  // namespace servebench::telemetry
