// End-to-end: the shipped perf-eval nightly workload with `dataset: speed_bench`
// (examples/minimax_m3_mi355x_speed_bench.workload.yaml) runs under `servebench
// nightly --engine sim` against the shipped generated sample (data/speed_bench/), the
// way a user points perf-eval at its prepared folder. Each record must say which
// file, subset and category filter its prompts came from, the realised category mix
// (every qualitative category for the whole subset, coding alone for the filtered
// config), and the acceptance the sim's EAGLE3 (3 drafts) produced.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/testing/shell.h"

namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

using servebench::testing::RunShell;

std::vector<json::object> Records(const fs::path& out) {
  std::vector<json::object> records;
  if (!fs::exists(out / "records")) return records;
  for (const auto& e : fs::directory_iterator(out / "records")) {
    std::ifstream in(e.path());
    std::string text(std::istreambuf_iterator<char>(in), {});
    records.push_back(json::parse(text).as_object());
  }
  return records;
}

const json::value* Find(const json::value& v, std::initializer_list<const char*> path) {
  const json::value* at = &v;
  for (const char* k : path) {
    if (!at->is_object() || !at->as_object().contains(k)) return nullptr;
    at = &at->as_object().at(k);
  }
  return at;
}

TEST(SpeedBenchE2eTest, NightlyWorkloadRunsOnTheSimWithItsCategoryMixAndAcceptance) {
  fs::path dir = fs::temp_directory_path() / ("sb_speed_bench_e2e_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path src = SERVEBENCH_SOURCE_DIR;
  const std::string cmd =
      std::string(SERVEBENCH_BIN) + " nightly " +
      (src / "examples" / "minimax_m3_mi355x_speed_bench.workload.yaml").string() +
      " --engine sim --sim-time-scale 0.02 --speed-bench-dir " +
      (src / "data" / "speed_bench").string() + " --out " + (dir / "out").string() + " --db " +
      (dir / "sb.db").string() +
      // Lateness on a shared machine is not under test (simulated time keeps the
      // numbers exact).
      " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000";
  auto r = RunShell(cmd);
  ASSERT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;

  std::vector<json::object> records = Records(dir / "out");
  ASSERT_EQ(records.size(), 2u) << r.output;
  int checked = 0;
  for (const json::object& rec : records) {
    const json::value v = rec;
    ASSERT_EQ(rec.at("status").as_string(), "ok") << json::serialize(rec);
    const json::value* mix = Find(v, {"summary", "servebench", "category_mix"});
    ASSERT_NE(mix, nullptr) << "the record carries the category mix: " << json::serialize(rec);
    EXPECT_EQ(mix->at("dataset").as_string(), "speed_bench");
    EXPECT_EQ(mix->at("subset").as_string(), "qualitative");
    EXPECT_NE(std::string(mix->at("file").as_string()).find("data/speed_bench/qualitative.jsonl"),
              std::string::npos);
    EXPECT_EQ(mix->at("output_len").as_int64(), 128);
    std::set<std::string> categories;
    int64_t requests = 0, completed = 0;
    for (const json::value& c : mix->at("categories").as_array()) {
      categories.insert(std::string(c.at("category").as_string()));
      requests += c.at("requests").as_int64();
      completed += c.at("completed").as_int64();
      EXPECT_GT(c.at("mean_output_tokens").as_double(), 0);
    }
    EXPECT_EQ(requests, mix->at("measured_requests").as_int64());
    EXPECT_EQ(completed, requests) << "every request completed";
    if (mix->at("category_filter").is_null()) {
      // 44 prompts over the 22-row sample: each row twice, so each category 4 times.
      EXPECT_EQ(requests, 44);
      EXPECT_EQ(categories.size(), 11u) << json::serialize(*mix);
      for (const json::value& c : mix->at("categories").as_array()) {
        EXPECT_EQ(c.at("requests").as_int64(), 4) << json::serialize(c);
      }
      EXPECT_EQ(mix->at("rows").as_int64(), 22);
      EXPECT_EQ(mix->at("multi_turn_rows").as_int64(), 11);
    } else {
      EXPECT_EQ(mix->at("category_filter").as_string(), "coding");
      EXPECT_EQ(categories, std::set<std::string>{"coding"});
      EXPECT_EQ(requests, 8);
      EXPECT_EQ(mix->at("rows").as_int64(), 2);
    }
    // The sim's EAGLE3 with 3 drafts and no target: each position accepted with
    // probability 0.7, so AL = 1 + 0.7 + 0.49 + 0.343 = 2.533 (sim/resolved_config.cc),
    // measured from its Prometheus counters. The tolerance covers the draw over ~2,000
    // steps and the last step of each request, cut short by max_tokens.
    const json::value* al = Find(v, {"summary", "spec_decode_acceptance_length"});
    ASSERT_NE(al, nullptr) << json::serialize(rec.at("summary"));
    EXPECT_NEAR(al->to_number<double>(), 2.533, 0.4);
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  fs::remove_all(dir);
}

// Without the folder (no --speed-bench-dir, no VLLM_SPEED_BENCH_DIR) nothing starts:
// bad input, naming the point and what to pass.
TEST(SpeedBenchE2eTest, WithoutTheFolderNothingStartsAndTheErrorSaysWhatToPass) {
  const fs::path src = SERVEBENCH_SOURCE_DIR;
  auto r = RunShell("env -u VLLM_SPEED_BENCH_DIR " + std::string(SERVEBENCH_BIN) + " nightly " +
                    (src / "examples" / "minimax_m3_mi355x_speed_bench.workload.yaml").string() +
                    " --engine sim --dry-run");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("minimax_m3-mi355x-speed-bench (speed_bench, concurrency "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("--speed-bench-dir DIR (or VLLM_SPEED_BENCH_DIR"), std::string::npos)
      << r.output;
}

// A category the subset does not have is a recipe error at its line, from `validate`.
TEST(SpeedBenchE2eTest, ACategoryOfAnotherSubsetIsARecipeErrorAtItsLine) {
  fs::path dir = fs::temp_directory_path() / ("sb_speed_bench_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "bad.workload.yaml").string();
  std::ofstream(file) << R"(name: bad-speed-bench
gpu: H200
vllm:
  model: meta-llama/Llama-3.1-8B-Instruct
vllm_bench:
  configs:
    - name: sb
      dataset: speed_bench
      speed_bench_dataset_subset: throughput_8k
      speed_bench_category: coding
      input_len: 8192
      output_len: 64
      num_prompts: 8
      max_concurrency: 4
)";
  auto r = RunShell(std::string(SERVEBENCH_BIN) + " validate " + file);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("bad.workload.yaml:10:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'coding' is not a category of the throughput_8k subset (high_entropy, "
                          "low_entropy, mixed)"),
            std::string::npos)
      << r.output;
  fs::remove_all(dir);
}

}  // namespace
