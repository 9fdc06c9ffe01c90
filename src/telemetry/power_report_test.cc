// servebench's power rules (reference power.md §3.2): every validity code provoked
// by a sample set built for it, the keys of a valid report, the disaggregated split
// (§5 D), the counter cross-check, and the InferenceX-compatible keys.
#include "telemetry/power_report.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace servebench::telemetry {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kT0 = 1000 * kS;  // window start on the monotonic clock

// GPUs "0".."n-1" at constant watts, sampled every `step_s` from t0 − 1 s to end + 1 s.
SampleSet Constant(int gpus, double watts, double window_s, double step_s = 1.0,
                   double period_s = 1.0) {
  SampleSet set;
  set.info.source = "nvidia-smi";
  set.info.field = "power.draw";
  set.info.sensor_avg_s = 1.0;
  set.info.period_s = period_s;
  for (int g = 0; g < gpus; ++g) {
    GpuInfo info;
    info.key = std::to_string(g);
    info.index = g;
    info.power_limit_w = 700 - g;
    set.gpus.push_back(info);
  }
  for (double t = -1; t <= window_s + 1 + 1e-9; t += step_s) {
    for (int g = 0; g < gpus; ++g) {
      PowerSample s;
      s.t_ns = kT0 + static_cast<int64_t>(t * kS);
      s.gpu = std::to_string(g);
      s.power_w = watts;
      s.temp_c = 60 + g;
      set.samples.push_back(s);
    }
  }
  return set;
}

PowerInputs Inputs(const SampleSet& set, double window_s) {
  PowerInputs in;
  in.samples = &set;
  in.anchor = {1'700'000'000 * kS, 0};
  in.window = {kT0, kT0 + static_cast<int64_t>(window_s * kS), window_s};
  in.work = {10, 10'000, 2'000};
  in.expected_gpus = static_cast<int>(set.gpus.size());
  return in;
}

std::vector<std::string> Codes(const PowerReport& r) { return r.validity.reason_codes(); }
bool Has(const std::vector<std::string>& codes, const std::string& code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

TEST(PowerReportTest, ExampleBGivesEveryKeyWithItsUnit) {
  SampleSet set = Constant(8, 500, 10);
  PowerReport r = ComputePowerReport(Inputs(set, 10));
  ASSERT_TRUE(r.valid()) << Codes(r).size() << " " << (Codes(r).empty() ? "" : Codes(r)[0]);
  EXPECT_DOUBLE_EQ(*r.total_gpu_energy_j, 40000.0);
  EXPECT_DOUBLE_EQ(*r.avg_total_gpu_power_w, 4000.0);
  EXPECT_DOUBLE_EQ(*r.avg_power_w, 500.0);
  EXPECT_DOUBLE_EQ(r.per_work->joules_per_output_token, 20.0);
  EXPECT_DOUBLE_EQ(r.per_work->joules_per_input_token, 4.0);
  EXPECT_DOUBLE_EQ(*r.output_tokens_per_joule, 0.05);
  EXPECT_DOUBLE_EQ(*r.total_tokens_per_joule, 0.3);
  EXPECT_DOUBLE_EQ(*r.peak_power_w, 500.0);
  EXPECT_DOUBLE_EQ(*r.p90_total_gpu_power_w, 4000.0);
  EXPECT_EQ(r.gpu_count_observed, 8);
  EXPECT_EQ(*r.samples_min, 11);
  EXPECT_DOUBLE_EQ(*r.max_gap_s, 1.0);
  EXPECT_DOUBLE_EQ(*r.power_limit_w, 693.0);
  EXPECT_NEAR(*r.avg_temp_c, 63.5, 1e-9);
  EXPECT_DOUBLE_EQ(*r.peak_temp_c, 67.0);
  EXPECT_DOUBLE_EQ(*r.window_start_unix, 1'700'001'000.0);
  boost::json::object j = PowerReportJson(r);
  EXPECT_EQ(j.at("power_valid").as_int64(), 1);
  EXPECT_DOUBLE_EQ(j.at("joules_per_output_token").as_double(), 20.0);
  EXPECT_DOUBLE_EQ(j.at("avg_total_gpu_power_w").as_double(), 4000.0);
  EXPECT_TRUE(j.at("power_invalid_reasons").as_array().empty());
}

TEST(PowerReportTest, InferenceXKeysAreRoundedAndOnlyWhenValid) {
  SampleSet set = Constant(8, 500, 10);
  PowerReport r = ComputePowerReport(Inputs(set, 10));
  boost::json::object row;
  AddInferenceXPowerKeys(r, &row);
  EXPECT_EQ(row.at("power_metric_schema_version").as_int64(), 2);
  EXPECT_EQ(row.at("power_valid").as_int64(), 1);
  EXPECT_DOUBLE_EQ(row.at("joules_per_total_token").as_double(), 3.333333);
  EXPECT_DOUBLE_EQ(row.at("joules_per_successful_query").as_double(), 4000.0);
  PowerInputs bad = Inputs(set, 10);
  bad.work.output_tokens = 0;
  boost::json::object invalid;
  AddInferenceXPowerKeys(ComputePowerReport(bad), &invalid);
  EXPECT_EQ(invalid.at("power_valid").as_int64(), 0);
  EXPECT_FALSE(invalid.contains("avg_power_w"));
  EXPECT_FALSE(invalid.contains("joules_per_output_token"));
}

TEST(PowerReportTest, NoSamplerIsPowerSourceUnavailable) {
  PowerInputs in;
  in.unavailable_note = "no GPU telemetry source answered";
  PowerReport r = ComputePowerReport(in);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"power_source_unavailable"});
  EXPECT_FALSE(r.total_gpu_energy_j.has_value());
  EXPECT_EQ(PowerReportJson(r).at("power_valid").as_int64(), 0);
}

TEST(PowerReportTest, AnExpectedGpuWithoutSamplesIsMissing) {
  SampleSet set = Constant(2, 500, 10);
  std::erase_if(set.samples, [](const PowerSample& s) { return s.gpu == "1"; });
  PowerReport r = ComputePowerReport(Inputs(set, 10));
  EXPECT_TRUE(Has(Codes(r), "power_gpu_missing"));
  EXPECT_TRUE(Has(Codes(r), "power_gpu_count_mismatch"));
  EXPECT_FALSE(r.total_gpu_energy_j.has_value());
}

TEST(PowerReportTest, SamplesOfAGpuOutsideTheSetAreFlaggedAndNotCounted) {
  SampleSet set = Constant(3, 500, 10);
  set.gpus.pop_back();  // the source was asked for GPUs 0 and 1 but also printed 2
  PowerInputs in = Inputs(set, 10);
  PowerReport r = ComputePowerReport(in);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"power_gpu_unexpected"});
  EXPECT_EQ(r.gpu_count_observed, 2);
  EXPECT_DOUBLE_EQ(r.integration.total_energy_j.value_or(0), 10000.0);  // GPU 2 not in it
}

TEST(PowerReportTest, ObservedCountDifferentFromThePointsGpuCountIsAMismatch) {
  SampleSet set = Constant(2, 500, 10);
  PowerInputs in = Inputs(set, 10);
  in.expected_gpus = 4;  // tp 4 but only two GPUs sampled
  EXPECT_EQ(Codes(ComputePowerReport(in)), std::vector<std::string>{"power_gpu_count_mismatch"});
}

TEST(PowerReportTest, SamplesThatStartInsideTheWindowAreNotBracketed) {
  SampleSet set = Constant(1, 500, 10);
  std::erase_if(set.samples, [](const PowerSample& s) { return s.t_ns <= kT0; });
  EXPECT_TRUE(Has(Codes(ComputePowerReport(Inputs(set, 10))), "power_not_bracketed"));
}

TEST(PowerReportTest, SamplesSparserThanHalfThePeriodRateAreTooFew) {
  // Every 2.5 s at a declared 1 s period: no gap above 3 periods, but 8 samples in a
  // 19 s window where ⌈0.5 × 19 / 1⌉ = 10 are needed.
  SampleSet set = Constant(1, 500, 19, 2.5, 1.0);
  EXPECT_EQ(Codes(ComputePowerReport(Inputs(set, 19))),
            std::vector<std::string>{"power_too_few_samples"});
}

TEST(PowerReportTest, AGapAboveThreePeriodsIsPowerGapExceeded) {
  SampleSet set = Constant(1, 500, 20);
  std::erase_if(set.samples, [](const PowerSample& s) {
    return s.t_ns > kT0 + 5 * kS && s.t_ns < kT0 + 9 * kS;
  });
  PowerReport r = ComputePowerReport(Inputs(set, 20));
  EXPECT_EQ(Codes(r), std::vector<std::string>{"power_gap_exceeded"});
  EXPECT_DOUBLE_EQ(*r.max_gap_s, 4.0);
  EXPECT_NE(r.validity.issues[0].detail.find("4.000 s gap"), std::string::npos);
}

TEST(PowerReportTest, AWindowShorterThanTenSensorPeriodsIsTooShort) {
  SampleSet set = Constant(1, 500, 5, 0.2, 0.2);  // 1 s averaged sensor, 5 s window
  EXPECT_EQ(Codes(ComputePowerReport(Inputs(set, 5))),
            std::vector<std::string>{"power_window_too_short"});
  set.info.sensor_avg_s = 0.0;  // an instantaneous reading: 10 × 0.2 s = 2 s suffices
  EXPECT_TRUE(ComputePowerReport(Inputs(set, 5)).valid());
}

TEST(PowerReportTest, NaPowerInsideTheWindowIsAnInvalidSample) {
  SampleSet set = Constant(1, 500, 10);
  set.samples[5].power_w.reset();
  EXPECT_EQ(Codes(ComputePowerReport(Inputs(set, 10))),
            std::vector<std::string>{"power_invalid_sample"});
  SampleSet bad_time = Constant(1, 500, 10);
  bad_time.bad_timestamps = 1;
  EXPECT_EQ(Codes(ComputePowerReport(Inputs(bad_time, 10))),
            std::vector<std::string>{"power_invalid_sample"});
}

TEST(PowerReportTest, ADurationThatDisagreesWithTheWindowIsAClockMismatch) {
  SampleSet set = Constant(1, 500, 10);
  PowerInputs in = Inputs(set, 10);
  in.window.duration_s = 10.4;  // within max(0.5 s, 1 %)
  EXPECT_TRUE(ComputePowerReport(in).valid());
  in.window.duration_s = 10.6;
  EXPECT_EQ(Codes(ComputePowerReport(in)), std::vector<std::string>{"power_clock_mismatch"});
}

TEST(PowerReportTest, MigOnAGpuOfTheSetIsPowerMig) {
  SampleSet set = Constant(2, 500, 10);
  set.gpus[1].mig_enabled = true;
  EXPECT_EQ(Codes(ComputePowerReport(Inputs(set, 10))), std::vector<std::string>{"power_mig"});
}

TEST(PowerReportTest, NoOutputTokensIsPowerTokenCounts) {
  SampleSet set = Constant(1, 500, 10);
  PowerInputs in = Inputs(set, 10);
  in.work.output_tokens = 0;
  PowerReport r = ComputePowerReport(in);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"power_token_counts"});
  EXPECT_FALSE(r.per_work.has_value());
}

TEST(PowerReportTest, ACounterThatDisagreesWithTheStreamIsAWarningOnly) {
  SampleSet set = Constant(1, 500, 10);
  for (PowerSample& s : set.samples)
    s.energy_j = 1e6 + 400.0 * static_cast<double>(s.t_ns - kT0) / kS;
  PowerReport r = ComputePowerReport(Inputs(set, 10));
  EXPECT_TRUE(r.valid());
  EXPECT_EQ(r.validity.warning_codes(), std::vector<std::string>{"power_counter_mismatch"});
  EXPECT_NEAR(*r.energy_counter_j, 4000.0, 1e-6);
  EXPECT_NEAR(*r.energy_counter_rel_err, 0.25, 1e-9);
  EXPECT_EQ(r.energy_counter_span, "window");
  for (PowerSample& s : set.samples)
    s.energy_j = 1e6 + 500.0 * static_cast<double>(s.t_ns - kT0) / kS;
  PowerReport agree = ComputePowerReport(Inputs(set, 10));
  EXPECT_TRUE(agree.validity.warning_codes().empty());
  EXPECT_NEAR(*agree.energy_counter_rel_err, 0.0, 1e-9);
}

TEST(PowerReportTest, ACounterThatGoesBackwardsIsAResetWarningWithNoCounterEnergy) {
  SampleSet set = Constant(1, 500, 10);
  for (PowerSample& s : set.samples)
    s.energy_j = 1e6 + 500.0 * static_cast<double>(s.t_ns - kT0) / kS;
  set.samples[6].energy_j = 10.0;  // driver reload mid-window
  PowerReport r = ComputePowerReport(Inputs(set, 10));
  EXPECT_TRUE(r.valid());
  EXPECT_EQ(r.validity.warning_codes(), std::vector<std::string>{"power_counter_reset"});
  EXPECT_FALSE(r.energy_counter_j.has_value());
}

TEST(PowerReportTest, SnapshotCountersUseInferenceXsAccumulatorCheck) {
  SampleSet set = Constant(2, 500, 10);
  set.counter_start = CounterSnapshot{0, {{"0", 1'000'000.0}, {"1", 2'000'000.0}}};
  set.counter_end = CounterSnapshot{0, {{"0", 1'006'000.0}, {"1", 2'006'000.0}}};
  PowerReport r = ComputePowerReport(Inputs(set, 10));
  ASSERT_TRUE(r.accumulator_check.has_value());
  EXPECT_EQ(r.energy_counter_span, "sampler");
  EXPECT_DOUBLE_EQ(r.accumulator_check->integrated_stream_j, 12000.0);  // the whole 12 s stream
  EXPECT_TRUE(r.accumulator_check->within_tolerance);
  EXPECT_TRUE(r.validity.warning_codes().empty());
  set.counter_end->energy_j["1"] = 1'999'000.0;  // wrapped
  EXPECT_EQ(ComputePowerReport(Inputs(set, 10)).validity.warning_codes(),
            std::vector<std::string>{"power_counter_reset"});
}

TEST(PowerReportTest, ExampleDSplitsPrefillAndDecodeEnergy) {
  SampleSet set = Constant(4, 0, 60);
  for (PowerSample& s : set.samples) s.power_w = (s.gpu == "0" || s.gpu == "1") ? 400.0 : 300.0;
  PowerInputs in = Inputs(set, 60);
  in.work = {8, 32768, 4096};
  in.roles = RoleGpus{{"0", "1"}, {"2", "3"}};
  PowerReport r = ComputePowerReport(in);
  ASSERT_TRUE(r.valid());
  EXPECT_DOUBLE_EQ(*r.total_gpu_energy_j, 84000.0);
  EXPECT_DOUBLE_EQ(*r.prefill_gpu_energy_j, 48000.0);
  EXPECT_DOUBLE_EQ(*r.prefill_avg_power_w, 400.0);
  EXPECT_DOUBLE_EQ(
      RoundLikeInferenceX("prefill_joules_per_input_token", *r.prefill_joules_per_input_token),
      1.464844);
  EXPECT_DOUBLE_EQ(*r.decode_gpu_energy_j, 36000.0);
  EXPECT_DOUBLE_EQ(*r.decode_avg_power_w, 300.0);
  EXPECT_DOUBLE_EQ(
      RoundLikeInferenceX("decode_joules_per_output_token", *r.decode_joules_per_output_token),
      8.789062);
  // P × prefill W + D × decode W = total W (power.md §4).
  EXPECT_DOUBLE_EQ(2 * *r.prefill_avg_power_w + 2 * *r.decode_avg_power_w,
                   *r.avg_total_gpu_power_w);
}

TEST(PowerReportTest, ASimulatedSourcesEnergyIsInItsOwnSeconds) {
  // The sim at time scale 0.5 (two simulated seconds per wall second): 10 wall
  // seconds of 500 W are 20 simulated seconds, 10,000 J.
  SampleSet set = Constant(1, 500, 10, 0.5, 1.0);
  set.info.time_scale = 0.5;
  set.info.sensor_avg_s = 0.0;
  PowerInputs in = Inputs(set, 10);
  in.window.duration_s = 20;
  PowerReport r = ComputePowerReport(in);
  ASSERT_TRUE(r.valid()) << (Codes(r).empty() ? "" : r.validity.issues[0].detail);
  EXPECT_DOUBLE_EQ(r.window_s, 20.0);
  EXPECT_DOUBLE_EQ(*r.total_gpu_energy_j, 10000.0);
  EXPECT_DOUBLE_EQ(*r.avg_power_w, 500.0);
}

TEST(PowerReportTest, TheTerminalLineSaysWhy) {
  SampleSet set = Constant(1, 500, 10);
  PowerInputs in = Inputs(set, 10);
  EXPECT_NE(FormatPowerLine(ComputePowerReport(in)).find("J/output token"), std::string::npos);
  in.work.output_tokens = 0;
  EXPECT_NE(FormatPowerLine(ComputePowerReport(in)).find("invalid (power_token_counts"),
            std::string::npos);
}

}  // namespace
}  // namespace servebench::telemetry
