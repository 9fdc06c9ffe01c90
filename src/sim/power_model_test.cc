// The sim's board-power model: idle between steps, idle → TDP with the step's
// compute and HBM utilisation, energy in simulated seconds at any time scale, the
// 1 s trailing mean, and the dcgm-exporter text servebench's DCGM sampler reads.
#include "sim/power_model.h"

#include <gtest/gtest.h>

#include "metrics/prometheus.h"

namespace servebench::sim {
namespace {

constexpr int64_t kS = 1'000'000'000;

Hardware H200() {
  Catalogue c = *Catalogue::BuiltIn();
  return c.hardware.at("h200");
}

StepBreakdown Step(double compute_s, double memory_s, double total_s) {
  StepBreakdown b;
  b.compute_s = compute_s;
  b.memory_s = memory_s;
  b.total_s = total_s;
  return b;
}

TEST(PowerModelTest, CatalogueCarriesSourcedTdpAndIdleForEveryGpu) {
  Catalogue c = *Catalogue::BuiltIn();
  for (const auto& [name, hw] : c.hardware) {
    EXPECT_GT(hw.idle_power_w, 0) << name;
    EXPECT_GT(hw.tdp_w, hw.idle_power_w) << name;
  }
  EXPECT_DOUBLE_EQ(c.hardware.at("h200").tdp_w, 700);
  EXPECT_DOUBLE_EQ(c.hardware.at("mi355x").tdp_w, 1400);
  EXPECT_DOUBLE_EQ(c.power_model.hbm_weight, 0.35);
}

TEST(PowerModelTest, StepPowerRunsFromIdleToTdpWithUtilisation) {
  PowerModel m(H200(), PowerModelSpec{1.0, 0.35}, 1, 1.0, 0);
  EXPECT_DOUBLE_EQ(m.StepPowerW(Step(0, 0, 0.01)), 70.0);                // nothing but overheads
  EXPECT_DOUBLE_EQ(m.StepPowerW(Step(0, 0.01, 0.01)), 70 + 630 * 0.35);  // memory-bound decode
  EXPECT_DOUBLE_EQ(m.StepPowerW(Step(0.01, 0.002, 0.01)), 700.0);        // compute-bound prefill
  // Memory-bound decode sits in the 137–300 W the H200 measurement reports.
  double decode = m.StepPowerW(Step(0.0005, 0.0044, 0.006));
  EXPECT_GT(decode, 137);
  EXPECT_LT(decode, 300);
}

TEST(PowerModelTest, EnergyIsIdleBetweenStepsAndStepPowerDuringThem) {
  PowerModel m(H200(), PowerModelSpec{1.0, 0.35}, 2, 1.0, 0);
  m.OnStep(1 * kS, 3 * kS, Step(0.01, 0, 0.01));  // 2 s at 700 W
  PowerModel::Reading r = m.Read(4 * kS);
  EXPECT_NEAR(r.energy_j, 70 * 1 + 700 * 2 + 70 * 1, 1e-6);
  EXPECT_DOUBLE_EQ(r.instant_w, 70);
  EXPECT_NEAR(r.average_w, 70, 1e-6);  // the last second was idle
  PowerModel::Reading mid = PowerModel(H200(), PowerModelSpec{}, 1, 1.0, 0).Read(0);
  EXPECT_DOUBLE_EQ(mid.instant_w, 70);
}

TEST(PowerModelTest, TheAverageIsTheTrailingSecondAndInstantIsTheRunningStep) {
  PowerModel m(H200(), PowerModelSpec{1.0, 0.35}, 1, 1.0, 0);
  m.OnStep(10 * kS, 10 * kS + kS / 2, Step(0.01, 0, 0.01));  // 0.5 s at 700 W
  PowerModel::Reading during = m.Read(10 * kS + kS / 4);
  EXPECT_DOUBLE_EQ(during.instant_w, 700);
  EXPECT_NEAR(during.average_w, 0.75 * 70 + 0.25 * 700, 1e-6);
  PowerModel::Reading after = m.Read(11 * kS);
  EXPECT_NEAR(after.average_w, 0.5 * 70 + 0.5 * 700, 1e-6);
  EXPECT_NEAR(after.util_pct, 50, 1e-6);
}

TEST(PowerModelTest, TheAveragingWindowIsConfigurable) {
  PowerModel m(H200(), PowerModelSpec{1.0, 0.35}, 1, 1.0, 0, /*average_s=*/0.25);
  m.OnStep(10 * kS, 10 * kS + kS / 8, Step(0.01, 0, 0.01));  // 0.125 s at 700 W
  PowerModel::Reading r = m.Read(10 * kS + kS / 4);
  EXPECT_NEAR(r.average_w, 0.5 * 70 + 0.5 * 700, 1e-6);
  EXPECT_NE(m.RenderDcgm(11 * kS).find("servebench_sim_power_average_s 0.25"), std::string::npos);
}

TEST(PowerModelTest, EnergyIsInSimulatedSecondsAtAnyTimeScale) {
  // Time scale 0.05: one wall second is 20 simulated seconds.
  PowerModel m(H200(), PowerModelSpec{1.0, 0.35}, 1, 0.05, 0);
  m.OnStep(0, kS / 2, Step(0.01, 0, 0.01));  // 10 simulated seconds at 700 W
  PowerModel::Reading r = m.Read(kS);
  EXPECT_NEAR(r.energy_j, 700 * 10 + 70 * 10, 1e-6);
  EXPECT_NEAR(r.average_w, 70, 1e-6);  // the last simulated second (50 ms wall) was idle
}

TEST(PowerModelTest, DcgmTextHasOneSeriesPerGpuUnderDcgmNames) {
  PowerModel m(H200(), PowerModelSpec{1.0, 0.35}, 2, 0.5, 0);
  std::string text = m.RenderDcgm(kS);
  auto samples = metrics::ParsePrometheusText(text);
  ASSERT_TRUE(samples.ok()) << samples.status().ToString();
  int power = 0;
  for (const metrics::PromSample& s : *samples) {
    if (s.name == "DCGM_FI_DEV_POWER_USAGE") {
      ++power;
      EXPECT_DOUBLE_EQ(s.value, 70.0);
      EXPECT_EQ(s.labels.at("UUID"), PowerModel::GpuUuid(std::stoi(s.labels.at("gpu"))));
    }
    if (s.name == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") {
      EXPECT_NEAR(s.value, 70 * 2 * 1000, 1e-3);
    }
    if (s.name == "servebench_sim_time_scale") {
      EXPECT_DOUBLE_EQ(s.value, 0.5);
    }
  }
  EXPECT_EQ(power, 2);
}

}  // namespace
}  // namespace servebench::sim
