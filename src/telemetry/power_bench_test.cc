// `servebench bench` measuring GPU power end to end: real processes and real
// sockets — the simulated engine serving over loopback, stand-in nvidia-smi and
// amd-smi (testdata/bin, on PATH) printing a known power per GPU, the fake NVML
// library through dlopen, and the sim's own dcgm-exporter-shaped /metrics. The
// result's servebench.power must equal the hand computation: constant watts ×
// the measured window, divided by the tokens the run reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "sim/testing/sim_process.h"
#include "sim/testing/started_sim.h"

namespace servebench::telemetry {
namespace {

using servebench::testing::ProcessResult;
using servebench::testing::RunProcess;
using sim::testing::SimProcess;
using sim::testing::StartSim;

const std::string kBin = std::string(SERVEBENCH_SOURCE_DIR) + "/src/telemetry/testdata/bin";

struct Bench {
  ProcessResult process;
  boost::json::object result;
  boost::json::object power;
  std::string csv;
};

// Runs bench through `env` (so the stand-ins are on PATH) and reads its result.
Bench RunBench(const SimProcess& sim, const std::string& env, const std::vector<std::string>& extra,
               const std::string& name) {
  std::string dir = std::filesystem::temp_directory_path() /
                    ("servebench-power-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::string> argv = {"/usr/bin/env", "PATH=" + kBin + ":" + std::getenv("PATH")};
  std::stringstream envs(env);
  for (std::string kv; envs >> kv;) argv.push_back(kv);
  for (const char* a : {SERVEBENCH_BIN, "bench", "--base-url"}) argv.emplace_back(a);
  argv.push_back(sim.base_url());
  for (const char* a :
       {"--model", "meta-llama/Llama-3.1-8B-Instruct", "--random-input-len", "64",
        "--random-output-len", "32", "--ignore-eos", "--arrival", "constant", "--request-rate", "4",
        "--no-progress", "--issue-delay-limit-ms", "1e9",
        // The sim's clock at a compressed scale lags on a shared machine;
        // these tests judge power, not the sim's schedule (server_lagged).
        "--server-lag-limit-ms", "1e9", "--save-result", "--result-filename", "result.json"}) {
    argv.emplace_back(a);
  }
  argv.push_back("--result-dir");
  argv.push_back(dir);
  argv.insert(argv.end(), extra.begin(), extra.end());
  Bench b;
  b.process = RunProcess(argv, 120);
  std::string text = servebench::testing::ReadFileOrEmpty(dir + "/result.json");
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (!ec && v.is_object()) {
    b.result = v.get_object();
    b.power = b.result.at("servebench").at("power").as_object();
  }
  b.csv = servebench::testing::ReadFileOrEmpty(dir + "/result.gpu_metrics.csv");
  std::filesystem::remove_all(dir);
  return b;
}

double Num(const boost::json::object& o, const char* key) {
  const boost::json::value& v = o.at(key);
  return v.is_double() ? v.as_double() : static_cast<double>(v.as_int64());
}

std::vector<std::string> Strings(const boost::json::value& v) {
  std::vector<std::string> out;
  for (const boost::json::value& s : v.as_array()) out.emplace_back(s.as_string());
  return out;
}

std::string Dump(const Bench& b) { return b.process.out + b.process.err; }

// The hand computation: constant `watts` over the result's measured duration.
void ExpectKnownPower(const Bench& b, double watts, int gpus) {
  ASSERT_EQ(Num(b.power, "power_valid"), 1) << boost::json::serialize(b.power) << Dump(b);
  double duration = Num(b.result, "duration");
  double output_tokens = Num(b.result, "total_output_tokens");
  double energy = watts * duration;
  EXPECT_NEAR(Num(b.power, "avg_total_gpu_power_w"), watts, 0.01 * watts);
  EXPECT_NEAR(Num(b.power, "total_gpu_energy_j"), energy, 0.01 * energy);
  EXPECT_NEAR(Num(b.power, "joules_per_output_token"), energy / output_tokens,
              0.01 * energy / output_tokens);
  EXPECT_NEAR(Num(b.power, "avg_power_w"), watts / gpus, 0.01 * watts / gpus);
  EXPECT_EQ(Num(b.power, "gpu_count_observed"), gpus);
}

TEST(PowerBenchTest, StandInNvidiaSmiKnownPowerCountsOnlyTheChosenGpus) {
  auto sim = StartSim();
  ASSERT_NE(sim, nullptr);
  Bench b =
      RunBench(*sim, "FAKE_SMI_POWER_W=100,200,300,400",
               {"--num-prompts", "12", "--gpu-telemetry", "nvidia-smi", "--power-reading",
                "instant", "--power-sample-period", "0.2", "--gpu-ids", "1,3", "--num-gpus", "2"},
               "nvidia");
  EXPECT_EQ(b.process.exit_code, 0) << Dump(b);
  // GPUs 1 and 3 only: 200 + 400 W, not the 1,000 W of all four.
  ExpectKnownPower(b, 600, 2);
  EXPECT_EQ(Strings(b.power.at("gpu_uuids")),
            (std::vector<std::string>{"GPU-5e1f0000-0000-4000-8000-000000000001",
                                      "GPU-5e1f0000-0000-4000-8000-000000000003"}));
  EXPECT_EQ(b.power.at("power_source").as_string(), "nvidia-smi");
  EXPECT_EQ(b.power.at("power_field").as_string(), "power.draw.instant");
  EXPECT_NE(b.process.out.find("power: 600.0 W total over 2 GPUs"), std::string::npos)
      << b.process.out;
  // The raw samples in InferenceX's gpu_metrics.csv shape, the chosen GPUs only.
  EXPECT_EQ(b.csv.rfind("timestamp, index, uuid, power.draw.instant [W], ", 0), 0u)
      << b.csv.substr(0, 200);
  EXPECT_NE(b.csv.find(", 3, GPU-5e1f0000-0000-4000-8000-000000000003, 400.00 W,"),
            std::string::npos);
  EXPECT_EQ(b.csv.find("-000000000000, "), std::string::npos);
  EXPECT_EQ(b.csv.find("-000000000002, "), std::string::npos);
}

TEST(PowerBenchTest, AGapInTheNvidiaSmiStreamIsPowerGapExceededAndRequirePowerInvalidatesTheRun) {
  auto sim = StartSim();
  ASSERT_NE(sim, nullptr);
  Bench b =
      RunBench(*sim, "FAKE_SMI_POWER_W=300,300 FAKE_SMI_GAP_AFTER_S=2 FAKE_SMI_GAP_S=2",
               {"--num-prompts", "20", "--gpu-telemetry", "nvidia-smi", "--power-reading",
                "instant", "--power-sample-period", "0.2", "--num-gpus", "2", "--require-power"},
               "nvidia-gap");
  EXPECT_EQ(b.process.exit_code, 2) << Dump(b);  // kExitRunInvalid
  ASSERT_FALSE(b.power.empty()) << Dump(b);
  EXPECT_EQ(Num(b.power, "power_valid"), 0);
  std::vector<std::string> reasons = Strings(b.power.at("power_invalid_reasons"));
  EXPECT_NE(std::find(reasons.begin(), reasons.end(), "power_gap_exceeded"), reasons.end())
      << boost::json::serialize(b.power);
  EXPECT_TRUE(b.power.at("total_gpu_energy_j").is_null());
  EXPECT_TRUE(b.power.at("joules_per_output_token").is_null());
  EXPECT_GE(Num(b.power, "power_max_gap_s"), 1.9);
  std::vector<std::string> run_reasons =
      Strings(b.result.at("servebench").at("validity").at("reasons"));
  EXPECT_NE(std::find(run_reasons.begin(), run_reasons.end(), "power_invalid"), run_reasons.end());
}

TEST(PowerBenchTest, StandInAmdSmiKnownPowerCountsOnlyTheChosenGpus) {
  auto sim = StartSim();
  ASSERT_NE(sim, nullptr);
  // amd-smi watches in whole seconds: a window of 10 periods takes ~11 s.
  Bench b = RunBench(
      *sim, "FAKE_SMI_POWER_W=250,260,270,280",
      {"--num-prompts", "44", "--gpu-telemetry", "amd-smi", "--gpu-ids", "0,2", "--num-gpus", "2"},
      "amd");
  EXPECT_EQ(b.process.exit_code, 0) << Dump(b);
  ExpectKnownPower(b, 520, 2);  // 250 + 270 W
  EXPECT_EQ(Strings(b.power.at("gpu_uuids")), (std::vector<std::string>{"0", "2"}));
  EXPECT_EQ(b.power.at("power_field").as_string(), "socket_power");
  // The energy snapshots bracket the sampler's life and agree with the stream.
  const boost::json::object& check = b.power.at("accumulator_check").as_object();
  EXPECT_TRUE(check.at("available").as_bool());
  EXPECT_TRUE(check.at("within_tolerance").as_bool()) << boost::json::serialize(check);
  EXPECT_EQ(b.power.at("energy_counter_span").as_string(), "sampler");
  EXPECT_NE(b.csv.find("socket_power [W]"), std::string::npos);
}

TEST(PowerBenchTest, AGapInTheAmdSmiStreamIsPowerGapExceeded) {
  auto sim = StartSim();
  ASSERT_NE(sim, nullptr);
  Bench b =
      RunBench(*sim, "FAKE_SMI_POWER_W=250,260 FAKE_SMI_GAP_AFTER_S=3 FAKE_SMI_GAP_S=4",
               {"--num-prompts", "36", "--gpu-telemetry", "amd-smi", "--num-gpus", "2"}, "amd-gap");
  EXPECT_EQ(b.process.exit_code, 0) << Dump(b);  // best effort: the run stays valid
  ASSERT_FALSE(b.power.empty()) << Dump(b);
  EXPECT_EQ(Num(b.power, "power_valid"), 0);
  std::vector<std::string> reasons = Strings(b.power.at("power_invalid_reasons"));
  EXPECT_NE(std::find(reasons.begin(), reasons.end(), "power_gap_exceeded"), reasons.end())
      << boost::json::serialize(b.power);
}

TEST(PowerBenchTest, FakeNvmlThroughDlopenGivesItsKnownInstantPower) {
  auto sim = StartSim();
  ASSERT_NE(sim, nullptr);
  Bench b = RunBench(
      *sim, "FAKE_NVML_POWER_MW=300000,400000",
      {"--num-prompts", "12", "--gpu-telemetry", "nvml", "--nvml-library", FAKE_NVML_LIBRARY,
       "--power-reading", "instant", "--power-sample-period", "0.2", "--num-gpus", "2"},
      "nvml");
  EXPECT_EQ(b.process.exit_code, 0) << Dump(b);
  ExpectKnownPower(b, 720, 2);  // the fake's instant field reads power + 10 W
  EXPECT_EQ(b.power.at("power_field").as_string(), "NVML_FI_DEV_POWER_INSTANT");
  // Its counter grows at the 700 W average: 2.9 % below the instant integral.
  EXPECT_NEAR(Num(b.power, "energy_counter_rel_err"), 20.0 / 700.0, 0.01);
}

TEST(PowerBenchTest, AnUnusableNamedSourceIsBadInputBeforeAnyLoad) {
  auto sim = StartSim();
  ASSERT_NE(sim, nullptr);
  Bench b = RunBench(*sim, "",
                     {"--num-prompts", "4", "--gpu-telemetry", "nvml", "--nvml-library",
                      "/nonexistent/libnvidia-ml.so.1"},
                     "bad");
  EXPECT_EQ(b.process.exit_code, 1) << Dump(b);
  EXPECT_NE(b.process.err.find("--gpu-telemetry nvml: cannot be used here"), std::string::npos)
      << Dump(b);
  EXPECT_TRUE(b.result.empty());
}

TEST(PowerBenchTest, AutoReadsTheSimulatedGpusFromTheSimsOwnMetrics) {
  // Time scale 0.1: ten simulated seconds a wall second, so a 2 s run is a 20 s
  // window in the sim's time, long enough for its 1 s averaged reading.
  auto sim = StartSim({"--time-scale", "0.1", "--tensor-parallel-size", "2"});
  ASSERT_NE(sim, nullptr);
  Bench b = RunBench(*sim, "", {"--num-prompts", "8", "--num-gpus", "2"}, "sim");
  EXPECT_EQ(b.process.exit_code, 0) << Dump(b);
  ASSERT_EQ(Num(b.power, "power_valid"), 1) << boost::json::serialize(b.power);
  EXPECT_EQ(b.power.at("power_source").as_string(), "dcgm");
  EXPECT_EQ(b.power.at("power_field").as_string(), "DCGM_FI_DEV_POWER_USAGE");
  EXPECT_DOUBLE_EQ(Num(b.power, "power_time_scale"), 0.1);
  EXPECT_EQ(Num(b.power, "gpu_count_observed"), 2);
  double per_gpu = Num(b.power, "avg_power_w");
  EXPECT_GT(per_gpu, 70);   // the H200's idle
  EXPECT_LT(per_gpu, 700);  // its TDP
  // Energy in simulated joules: the window in simulated seconds × the power.
  EXPECT_NEAR(Num(b.power, "total_gpu_energy_j"),
              Num(b.power, "avg_total_gpu_power_w") * Num(b.power, "power_window_s"),
              1e-6 * Num(b.power, "total_gpu_energy_j"));
  // The power window and the result's duration are both simulated seconds (a compressed
  // sim's result is in its clock, docs/metrics.md "Simulated time").
  EXPECT_EQ(b.result.at("servebench").at("run").at("clock").as_string(), "simulated");
  // Within the clock check's max(0.5 s, 1 %).
  EXPECT_NEAR(Num(b.power, "power_window_s"), Num(b.result, "duration"),
              std::max(0.5, 0.01 * Num(b.power, "power_window_s")));
  // The sim's exact counter agrees with the integrated 1 s means.
  EXPECT_LT(Num(b.power, "energy_counter_rel_err"), 0.05);
  EXPECT_GT(Num(b.power, "output_tokens_per_joule"), 0);
}

}  // namespace
}  // namespace servebench::telemetry
