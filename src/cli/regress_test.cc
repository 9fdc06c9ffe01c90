// End-to-end checks of `servebench regress` (runs the real binary): a folder of
// nightly records with one slowed-down series, one blocked series that fails, one
// series that stopped reporting; the same records through a SQLite store.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/testing/shell.h"

namespace {

using Result = servebench::testing::ShellResult;

Result RunSb(const std::string& args) { return servebench::testing::RunServebench(args); }

std::string Date(int night) {  // 2026-11-01 + night, nights < 30
  char buf[32];
  std::snprintf(buf, sizeof buf, "2026-11-%02d", night + 1);
  return buf;
}

// One record of `series` (its recipe name) on `night`.
std::string Record(const std::string& series, int night, const std::string& status, double tput,
                   bool blocked = false) {
  std::string id = series + "-" + std::to_string(night);
  std::string summary =
      status == "ok" ? R"({"total_token_throughput": )" + std::to_string(2 * tput) +
                           R"(, "output_throughput": )" + std::to_string(tput) +
                           R"(, "median_ttft_ms": 50.0, "median_tpot_ms": 20.0, "failed": 0})"
                     : "null";
  return R"({"schema_version": 1, "record_id": ")" + id + R"(", "run_id": "night-)" +
         std::to_string(night) + R"(", "point_id": "p-)" + series + R"(", "series_id": "s-)" +
         series + R"(", "recipe": ")" + series +
         R"(", "engine": "sim", "model": "sim/llama-8b", "hardware": "sim-h100", "precision": "bf16",
         "isl": 1024, "osl": 128, "concurrency": 8, "tp": 1, "num_gpus": 1, "status": ")" +
         status + R"(", "failure_class": ")" +
         (status == "failed" ? "server.died_during_run" : "") +
         R"(", "failure_reason": "", "blocked": )" + (blocked ? "true" : "false") +
         R"(, "blocked_reason": ")" + (blocked ? "waits for engine fix #12" : "") +
         R"(", "build": {"date": ")" + Date(night) + R"(", "image": "sim:nightly-)" +
         std::to_string(night) + R"(", "commit": "c)" + std::to_string(night) +
         R"("}, "provenance": {"started_at": ")" + Date(night) + R"(T02:00:00Z"}, "summary": )" +
         summary + "}";
}

class RegressCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "sbregress-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    static const double kWiggle[] = {0.004, -0.006, 0.008, -0.002, 0.005, -0.007, 0.001, -0.003};
    for (int night = 0; night < 20; ++night) {
      double w = 1 + kWiggle[night % 8];
      Write("quiet", night, Record("quiet", night, "ok", 1000 * w));
      // 8 % slower from night 18 (build c18) on.
      Write("slowed", night, Record("slowed", night, "ok", 1000 * w * (night >= 18 ? 0.92 : 1.0)));
      bool fails = night == 19;
      Write("blocked", night, Record("blocked", night, fails ? "failed" : "ok", 1000 * w, fails));
      if (night < 19) Write("stopped", night, Record("stopped", night, "ok", 1000 * w));
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& series, int night, const std::string& text) {
    std::string path = dir_ + "/out/records/" + series + "-" + std::to_string(night) + ".json";
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
  }
  std::string dir_;
};

TEST_F(RegressCliTest, MarkdownFlagsTheSlowedSeriesAndExitsWithTheRegressionCode) {
  Result r = RunSb("regress --records " + dir_ + "/out");
  EXPECT_EQ(r.exit_code, 4) << "kExitRegression, never bad input's 1\n" << r.output;
  EXPECT_NE(r.output.find("night of 2026-11-20"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("**1 regression**, 1 missing, 0 invalid, 1 blocked"), std::string::npos)
      << r.output;
  // Worst first: the regression row is the first row of the table.
  size_t row = r.output.find("|---|\n| ");
  ASSERT_NE(row, std::string::npos) << r.output;
  EXPECT_EQ(r.output.substr(row + 6, 21), "| regression | slowed") << r.output;
  // The first bad build is named: the slowdown came with build c18.
  EXPECT_NE(r.output.find(
                "first moved with sim:nightly-18 c18 (2026-11-19), last good sim:nightly-17 c17"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("| tput_per_gpu | 1836 |"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| -8."), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| missing | stopped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| blocked | blocked"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("waits for engine fix #12"), std::string::npos) << r.output;
}

TEST_F(RegressCliTest, EarlierNightIsGreenAndJunitAndJsonWork) {
  Result r = RunSb("regress --records " + dir_ + "/out --date 2026-11-17 --format junit");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("tests=\"4\" failures=\"0\""), std::string::npos) << r.output;
  std::string out = dir_ + "/report.json";
  r = RunSb("regress --records " + dir_ + "/out --format json --output " + out);
  EXPECT_EQ(r.exit_code, 4) << r.output;
  std::ifstream in(out);
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(json.find("\"status\":\"regression\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"exit_code\":4"), std::string::npos) << json;
}

TEST_F(RegressCliTest, ReadsTheStoreAndExpectedSeries) {
  Result ingest = RunSb("ingest --db " + dir_ + "/r.db -q " + dir_ + "/out");
  ASSERT_EQ(ingest.exit_code, 0) << ingest.output;
  std::ofstream(dir_ + "/expected.txt") << "# series the recipes expect\ns-quiet\ns-never-ran\n";
  Result r = RunSb("regress --db " + dir_ + "/r.db --expected " + dir_ + "/expected.txt");
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("**1 regression**, 2 missing"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("s-never-ran"), std::string::npos) << r.output;
}

TEST_F(RegressCliTest, AMissingArgumentIsUsageAndABadValueIsBadInput) {
  EXPECT_EQ(RunSb("regress").exit_code, 64);
  // A night with no data and a folder that does not exist are values, not usage.
  Result r = RunSb("regress --records " + dir_ + "/out --date 1999-01-01");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("2026-11-01 .. 2026-11-20"), std::string::npos) << r.output;
  // A folder that is not there is bad input (1), like a record that does not read.
  EXPECT_EQ(RunSb("regress --records " + dir_ + "/nowhere").exit_code, 1);
  Write("broken", 0, R"({"schema_version": 1, "record_id": "broken-0", "status": "great"})");
  r = RunSb("regress --records " + dir_ + "/out");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("broken-0.json: run_id: missing"), std::string::npos) << r.output;
}

}  // namespace
