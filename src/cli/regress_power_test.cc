// `servebench regress` judges energy per token (docs/power.md): a series whose
// build draws 10 % more joules per output token at the same throughput is a
// regression on joules_per_output_token (exit 4, kExitRegression), named with the
// build it came with; a series with invalid power (the keys null) is judged on the
// rest. The records are written by hand, with twenty nights of ±0.8 % jitter, so the
// verdict depends on nothing but the rule (docs/power.md, "Regressions").
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/exit_codes.h"
#include "common/testing/shell.h"

namespace {

std::string Date(int night) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2026-11-%02d", night + 1);
  return buf;
}

// A record whose power is `joules` per output token (null: power was invalid).
std::string Record(const std::string& series, int night, double tput, const std::string& joules) {
  std::string power =
      joules == "null"
          ? R"({"power_valid": 0, "joules_per_output_token": null, "output_tokens_per_joule": null})"
          : R"({"power_valid": 1, "joules_per_output_token": )" + joules +
                R"(, "output_tokens_per_joule": )" + std::to_string(1.0 / std::stod(joules)) + "}";
  std::string summary =
      R"({"total_token_throughput": )" + std::to_string(2 * tput) + R"(, "output_throughput": )" +
      std::to_string(tput) +
      R"(, "median_ttft_ms": 50.0, "median_tpot_ms": 20.0, "failed": 0, "servebench": {"power": )" +
      power + "}}";
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

TEST(RegressPowerTest, ABuildWhoseJoulesPerTokenRoseTenPercentIsARegression) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "sbregress-power-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  std::string dir = pattern;
  static const double kWiggle[] = {0.004, -0.006, 0.008, -0.002, 0.005, -0.007, 0.001, -0.003};
  for (int night = 0; night < 20; ++night) {
    double w = 1 + kWiggle[night % 8];
    auto write = [&](const std::string& series, const std::string& text) {
      std::string path = dir + "/out/records/" + series + "-" + std::to_string(night) + ".json";
      std::filesystem::create_directories(std::filesystem::path(path).parent_path());
      std::ofstream(path) << text;
    };
    // Same throughput every night; from build c18 on 10 % more energy per token.
    write("hungry",
          Record("hungry", night, 1000 * w, std::to_string(0.5 * w * (night >= 18 ? 1.10 : 1.0))));
    write("frugal", Record("frugal", night, 1000 * w, std::to_string(0.5 * w)));
    write("unmeasured", Record("unmeasured", night, 1000 * w, "null"));
  }
  servebench::testing::ShellResult r =
      servebench::testing::RunServebench("regress --records " + dir + "/out");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.exit_code, servebench::kExitRegression) << r.output;
  EXPECT_NE(r.output.find("**1 regression**"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| regression | hungry"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("joules_per_output_token"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("first moved with sim:nightly-18 c18"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("| regression | frugal"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("| regression | unmeasured"), std::string::npos) << r.output;
}

}  // namespace
