// End-to-end: `servebench nightly` on the simulated engine, night after night, with
// the simulated build getting slower, then `servebench regress` over the store.
// Nights 1-5 run the normal build (4 baseline nights before the judged window of
// three, as docs/regression.md requires), nights 6-7 a build 1.5x slower: the
// regression must be flagged on night 7 (confirmed by persistence) with the right
// series and exit status 4 (kExitRegression: never bad input's 1), night 5 must be
// quiet, and `nightly --regress` must judge its own night and exit with that code.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/testing/shell.h"

namespace {

namespace fs = std::filesystem;

using Result = servebench::testing::ShellResult;
using servebench::testing::RunShell;

TEST(NightlyE2eTest, SlowerSimulatedBuildIsFlaggedAsARegressionOfItsSeries) {
  fs::path dir = fs::temp_directory_path() / ("sb_nightly_e2e_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string recipe = (dir / "nightly.yaml").string();
  std::ofstream(recipe) << R"(servebench: 1
recipes:
  nightly-llama8b-sim:
    engine: sim
    model: llama-3.1-8b
    hardware: h200
    precision: bf16
    nightly: true
    sim:
      time_scale: 0.1
    load:
      dataset: random
      num_prompts: 32
    scenarios:
      - isl: 128
        osl: 64
        search_space:
          - tp: 1
            concurrency: [8]
)";
  std::string bin = SERVEBENCH_BIN;
  std::string db = (dir / "sb.db").string();
  for (int night = 1; night <= 7; ++night) {
    bool slow = night >= 6;
    // The last night judges itself: nightly propagates the verdict's exit code.
    std::string cmd = bin + " nightly " + recipe + " --out " + (dir / "out").string() + " --db " +
                      db +
                      // Lateness on a shared machine is not under test (simulated time
                      // keeps the numbers exact; sim_rehearsal_e2e_test judges lateness).
                      " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000"
                      " --build-date 2026-11-0" +
                      std::to_string(night) + " --build-commit c" + std::to_string(night) +
                      (slow ? " --sim-build-slowdown 1.5" : "") + (night == 7 ? " --regress" : "");
    Result r = RunShell(cmd);
    if (night == 7) {
      EXPECT_EQ(r.exit_code, 4) << "nightly --regress exits with the verdict's code\n" << r.output;
      EXPECT_NE(r.output.find("| regression | nightly-llama8b-sim"), std::string::npos) << r.output;
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << "night " << night << ":\n" << r.output;
    if (night == 5) {
      Result quiet = RunShell(bin + " regress --db " + db + " --date 2026-11-05");
      EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
      EXPECT_EQ(quiet.output.find("| regression |"), std::string::npos) << quiet.output;
    }
  }
  Result r = RunShell(bin + " regress --db " + db + " --date 2026-11-07");
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("| regression | nightly-llama8b-sim"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("output_tput_per_gpu"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("build-slowdown-1.5"), std::string::npos)
      << "the report names the build judged\n"
      << r.output;

  // The recipes say what is expected: a concurrency never run is missing tonight.
  std::string wider = (dir / "wider.yaml").string();
  {
    std::ifstream in(recipe);
    std::string text(std::istreambuf_iterator<char>(in), {});
    text.replace(text.find("concurrency: [8]"), 16, "concurrency: [8, 16]");
    std::ofstream(wider) << text;
  }
  Result m = RunShell(bin + " regress --db " + db + " --date 2026-11-07 --expected " + wider);
  EXPECT_EQ(m.exit_code, 4) << m.output;
  EXPECT_NE(m.output.find("1 missing"), std::string::npos) << m.output;
  EXPECT_NE(m.output.find("expected by the recipes; never reported"), std::string::npos)
      << m.output;
  fs::remove_all(dir);
}

}  // namespace
