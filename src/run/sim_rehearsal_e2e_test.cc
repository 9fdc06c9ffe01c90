// End-to-end rehearsals on the simulator: the real `servebench run ... --engine sim`
// against real `servebench sim` engines on loopback, and a CPU-starved host whose
// lagging simulator makes the point invalid (server_lagged) instead of a wrong number.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "common/testing/shell.h"

namespace {

namespace fs = std::filesystem;
using Result = servebench::testing::ShellResult;

class SimRehearsalE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sb_rehearsal_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string Source(const std::string& path) {
    return std::string(SERVEBENCH_SOURCE_DIR) + "/" + path;
  }

  // `servebench run` with its results in this test's folder. The suite shares two
  // cores with other tests and time is compressed 100x, so wall-clock hiccups of the
  // host are magnified 100x in simulated time: the lateness rules are not what these
  // tests are about (BusyHostMakesThePointInvalidNotSlower is).
  Result Run(const std::string& args) {
    return servebench::testing::RunShell(std::string(SERVEBENCH_BIN) + " run " + args + " --out " +
                                         (dir_ / "out").string() + " --db " +
                                         (dir_ / "sb.db").string() +
                                         " --issue-delay-limit-ms 1e9 --server-lag-limit-ms 1e9");
  }

  std::vector<boost::json::object> Records() {
    std::vector<boost::json::object> out;
    fs::path records = dir_ / "out" / "records";
    if (!fs::exists(records)) return out;
    for (const auto& e : fs::directory_iterator(records)) {
      std::ifstream in(e.path());
      out.push_back(
          boost::json::parse(std::string(std::istreambuf_iterator<char>(in), {})).as_object());
    }
    return out;
  }

  // The 53 points of seed (a) rehearsed: every one ok, on a simulated MI355X,
  // standing in for vLLM, in simulated time, and physically possible.
  void ExpectSeedRehearsal(const Result& r) {
    ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 20000);
    EXPECT_NE(r.output.find("53 point(s): 53 ok"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Pareto frontier"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("standing in for vllm"), std::string::npos) << r.output;
    // The canary (the first session's lowest concurrency) runs first.
    size_t first_point = r.output.find("servebench: point ");
    ASSERT_NE(first_point, std::string::npos) << r.output;
    EXPECT_NE(r.output.substr(first_point, 120).find("concurrency 1 "), std::string::npos)
        << r.output.substr(first_point, 200);
    auto records = Records();
    ASSERT_EQ(records.size(), 53u);
    for (const auto& rec : records) {
      EXPECT_EQ(rec.at("status").as_string(), "ok") << rec.at("failure_reason").as_string();
      EXPECT_TRUE(rec.at("simulated").as_bool());
      EXPECT_EQ(rec.at("engine").as_string(), "sim");
      EXPECT_EQ(rec.at("stands_in_for").as_string(), "vllm");
      EXPECT_EQ(rec.at("hardware").as_string(), "mi355x");
      EXPECT_EQ(rec.at("time_scale").as_double(), 0.01);
      const auto& summary = rec.at("summary").as_object();
      EXPECT_EQ(summary.at("servebench").at("run").at("clock").as_string(), "simulated");
      // MiniMax-M3 FP8 on 8 (or 4) MI355X: ~3-6 GB of weights per GPU must be read per
      // step; at 8 TB/s no user gets even 1,000 tokens/s without speculation, and with
      // 3 drafts at most 4 tokens per step.
      double tpot = summary.at("median_tpot_ms").to_number<double>();
      EXPECT_GT(tpot, 0.5) << rec.at("concurrency").as_int64();
    }
  }

  fs::path dir_;
};

TEST_F(SimRehearsalE2eTest, SeedRecipeRehearsesItsFiftyThreePointsOnASimulatedMi355x) {
  ExpectSeedRehearsal(Run(Source("examples/minimaxm3-mi355x-mtp.yaml") +
                          " --engine sim --sim-time-scale 0.01 --prompts-per-concurrency 1"));
}

TEST_F(SimRehearsalE2eTest, TheSeedsInferenceXFormRehearsesTheSameFiftyThreePoints) {
  ExpectSeedRehearsal(Run(Source("src/recipe/testdata/minimaxm3-mi355x-mtp.inferencex.yaml") +
                          " --engine sim --sim-time-scale 0.01 --prompts-per-concurrency 1"));
}

TEST_F(SimRehearsalE2eTest, OneInferenceXKeyOfEachEngineFamilyRehearses) {
  Result r = Run(Source("src/recipe/testdata/nvidia-master.yaml") + " " +
                 Source("src/recipe/testdata/amd-master.yaml") + " " +
                 Source("src/recipe/testdata/runners.yaml") +
                 " --config-keys dsr1-fp8-h200-sglang,dsr1-fp8-h200-trt,dsr1-fp8-mi355x-atom"
                 " --conc 4 --no-evals --engine sim --sim-time-scale 0.01"
                 " --prompts-per-concurrency 1");
  ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 20000);
  std::set<std::string> families;
  for (const auto& rec : Records()) {
    EXPECT_EQ(rec.at("status").as_string(), "ok") << rec.at("failure_reason").as_string();
    EXPECT_EQ(rec.at("model").as_string(), "deepseek-ai/DeepSeek-R1-0528");
    families.insert(std::string(rec.at("stands_in_for").as_string()));
  }
  EXPECT_EQ(families, (std::set<std::string>{"sglang", "trtllm", "atom"}));
}

TEST_F(SimRehearsalE2eTest, AnUnknownModelIsAnErrorAtPlanTimeAndNothingStarts) {
  Result r = Run(Source("src/recipe/testdata/nvidia-master.yaml") + " " +
                 Source("src/recipe/testdata/runners.yaml") +
                 " --config-keys qwen3.5-fp8-h200-sglang --engine sim");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("model \"Qwen/Qwen3.5-397B-A17B-FP8\": not in the simulator's catalogue"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("deepseek-r1 (deepseek-ai/DeepSeek-R1)"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "out" / "records"));
}

// The busy-machine test: spinning threads saturate every core beside the simulator,
// which then cannot keep its compressed schedule. The point must come out invalid
// with server_lagged (its numbers are not a measurement), never ok.
TEST_F(SimRehearsalE2eTest, BusyHostMakesThePointInvalidNotSlower) {
  std::string recipe = (dir_ / "recipe.yaml").string();
  std::ofstream(recipe) << "servebench: 1\nrecipes:\n  busy:\n    engine: sim\n"
                           "    model: llama-3.1-8b\n    hardware: h200\n    precision: bf16\n"
                           "    sim:\n      time_scale: 0.02\n"
                           "    load:\n      dataset: random\n      num_prompts: 24\n"
                           "    scenarios:\n      - isl: 256\n        osl: 128\n"
                           "        search_space:\n          - tp: 1\n"
                           "            concurrency: [8]\n";
  std::atomic<bool> stop{false};
  std::vector<std::thread> spinners;
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < 4 * cores; ++i) {
    spinners.emplace_back([&stop] {
      volatile uint64_t x = 0;
      while (!stop.load(std::memory_order_relaxed)) x = x + 1;
    });
  }
  // Only the server's lateness is judged here (the client is held to no limit).
  Result r = servebench::testing::RunShell(std::string(SERVEBENCH_BIN) + " run " + recipe +
                                           " --out " + (dir_ / "out").string() +
                                           " --db '' --issue-delay-limit-ms 1e9");
  stop.store(true);
  for (auto& t : spinners) t.join();
  EXPECT_EQ(r.exit_code, 2) << r.output;
  auto records = Records();
  ASSERT_EQ(records.size(), 1u) << r.output;
  EXPECT_EQ(records[0].at("status").as_string(), "invalid") << r.output;
  bool lagged = false;
  for (const auto& reason : records[0].at("invalid_reasons").as_array())
    lagged |= reason.as_string() == "server_lagged";
  EXPECT_TRUE(lagged) << boost::json::serialize(records[0].at("invalid_reasons"));
  // The lateness is in the record, in simulated ms, beside the limit it broke.
  const auto& lag = records[0].at("summary").at("servebench").at("server_lag").as_object();
  EXPECT_GT(lag.at("p99_ms").to_number<double>(), 1.0);
}

}  // namespace
