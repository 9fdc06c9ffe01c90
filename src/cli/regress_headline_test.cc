// `servebench regress` judges the headline metrics beyond latency and throughput:
// - energy per token (docs/power.md): a series whose build draws 10 % more joules per
//   output token at the same throughput is a regression on joules_per_output_token
//   (exit 4, kExitRegression), named with the build it came with; a series with invalid
//   power (the keys null) is judged on the rest;
// - tool-call validity (docs/metrics.md "Channels"): a build whose tool calls' arguments
//   stop parsing as JSON (valid fraction 0.99 -> 0.90) is a regression on
//   tool_call_valid_fraction at the same speed.
// The records are written by hand, with twenty nights of ±0.8 % jitter, so the verdict
// depends on nothing but the rule (docs/power.md and docs/regression.md).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "common/exit_codes.h"
#include "common/testing/shell.h"

namespace {

std::string Date(int night) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2026-11-%02d", night + 1);
  return buf;
}

// A record of `series` on `night` at `tput` output tok/s, its summary's servebench
// block `servebench` (a JSON object's text).
std::string Record(const std::string& series, int night, double tput,
                   const std::string& servebench) {
  std::string summary =
      R"({"total_token_throughput": )" + std::to_string(2 * tput) + R"(, "output_throughput": )" +
      std::to_string(tput) +
      R"(, "median_ttft_ms": 50.0, "median_tpot_ms": 20.0, "failed": 0, "servebench": )" +
      servebench + "}";
  std::string id = series + "-" + std::to_string(night);
  return R"({"schema_version": 1, "record_id": ")" + id + R"(", "run_id": "night-)" +
         std::to_string(night) + R"(", "point_id": "p-)" + series + R"(", "series_id": "s-)" +
         series + R"(", "recipe": ")" + series +
         R"(", "engine": "sim", "model": "sim/llama-8b", "hardware": "sim-h200", "precision": "bf16",
         "isl": 1024, "osl": 128, "concurrency": 8, "tp": 1, "num_gpus": 1, "status": "ok",
         "failure_class": "", "failure_reason": "", "blocked": false, "blocked_reason": "",
         "build": {"date": ")" +
         Date(night) + R"(", "image": "sim:nightly-)" + std::to_string(night) +
         R"(", "commit": "c)" + std::to_string(night) + R"("}, "provenance": {"started_at": ")" +
         Date(night) + R"(T02:00:00Z"}, "summary": )" + summary + "}";
}

// A servebench block whose power is `joules` per output token (null: power was invalid).
std::string Power(const std::string& joules) {
  return joules == "null" ? R"({"power": {"power_valid": 0, "joules_per_output_token": null, )"
                            R"("output_tokens_per_joule": null}})"
                          : R"({"power": {"power_valid": 1, "joules_per_output_token": )" + joules +
                                R"(, "output_tokens_per_joule": )" +
                                std::to_string(1.0 / std::stod(joules)) + "}}";
}

// A servebench block with `valid` and `invalid` tool calls.
std::string ToolCalls(int valid, int invalid) {
  return R"({"tool_calls": {"valid": )" + std::to_string(valid) + R"(, "invalid": )" +
         std::to_string(invalid) + R"(, "requests_without_tool_call": 0}})";
}

constexpr double kWiggle[] = {0.004, -0.006, 0.008, -0.002, 0.005, -0.007, 0.001, -0.003};

// Writes twenty nights of each series (`block(series, night, w)` its servebench block,
// w the night's jitter) into a fresh folder's out/records and runs regress on them.
servebench::testing::ShellResult RegressOver(
    const std::vector<std::string>& series,
    const std::function<std::string(const std::string&, int, double)>& block) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "sbregress-headline-XXXXXX").string();
  EXPECT_NE(mkdtemp(pattern.data()), nullptr);
  std::string dir = pattern;
  for (int night = 0; night < 20; ++night) {
    double w = 1 + kWiggle[night % 8];
    for (const std::string& name : series) {
      std::string path = dir + "/out/records/" + name + "-" + std::to_string(night) + ".json";
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      std::ofstream(path) << Record(name, night, 1000 * w, block(name, night, w));
    }
  }
  servebench::testing::ShellResult r =
      servebench::testing::RunServebench("regress --records " + dir + "/out");
  std::filesystem::remove_all(dir);
  return r;
}

TEST(RegressPowerTest, ABuildWhoseJoulesPerTokenRoseTenPercentIsARegression) {
  // Same throughput every night; from build c18 on 10 % more energy per token.
  servebench::testing::ShellResult r = RegressOver(
      {"hungry", "frugal", "unmeasured"}, [](const std::string& s, int night, double w) {
        if (s == "unmeasured") return Power("null");
        return Power(std::to_string(0.5 * w * (s == "hungry" && night >= 18 ? 1.10 : 1.0)));
      });
  EXPECT_EQ(r.exit_code, servebench::kExitRegression) << r.output;
  EXPECT_NE(r.output.find("**1 regression**"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| regression | hungry"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("joules_per_output_token"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("first moved with sim:nightly-18 c18"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("| regression | frugal"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("| regression | unmeasured"), std::string::npos) << r.output;
}

// Tool calls: from build c18 on one call in ten has arguments that are not JSON (a
// parser or a grammar change), at the same speed.
TEST(RegressToolCallsTest, ABuildWhoseToolCallsStopParsingIsARegression) {
  servebench::testing::ShellResult r =
      RegressOver({"broken", "sound"}, [](const std::string& s, int night, double) {
        // 0.99 every night with one invalid call in a hundred, then 0.90 for "broken".
        return s == "broken" && night >= 18 ? ToolCalls(90, 10) : ToolCalls(99, 1);
      });
  EXPECT_EQ(r.exit_code, servebench::kExitRegression) << r.output;
  EXPECT_NE(r.output.find("| regression | broken"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tool_call_valid_fraction"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("first moved with sim:nightly-18 c18"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("| regression | sound"), std::string::npos) << r.output;
}

}  // namespace
