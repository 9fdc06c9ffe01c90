// Fuzz-style: random values for the flags of bench, run, eval, results and regress
// (a fixed seed and a modest number of cases, so `make test` stays short and every
// failure reproduces). Whatever the values, the binary must
//   - exit with one of the documented codes (never 134 abort or 139 segfault),
//   - start no engine and write nothing when it refuses the input (exit 1 or 64),
//   - write nothing outside --out (and the --db it was given) otherwise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace servebench::cli::testing {
namespace {

constexpr unsigned kSeed = 13;
constexpr int kCasesPerCommand = 16;

// Values that have broken command-line tools: out of range, not numbers, huge,
// impossible dates, paths that climb, schemes, SQL, look-alike Unicode, empty.
const std::vector<std::string> kValues = {"-1",
                                          "0",
                                          "1",
                                          "7",
                                          "65536",
                                          "99999",
                                          "2000000000",
                                          "99999999999999999999",
                                          "1.5",
                                          "nan",
                                          "inf",
                                          "-inf",
                                          "1e400",
                                          "abc",
                                          "''",
                                          "2026-13-45",
                                          "2026-02-29",
                                          "2026-11-29",
                                          "yesterday",
                                          "a/b",
                                          "../escape",
                                          "mysql://u@h/db",
                                          "postgre://x",
                                          "sqlite:",
                                          "\"'; DROP TABLE records; --\"",
                                          "llama\u20113.1-8b",
                                          "--",
                                          "http://127.0.0.1:1",
                                          std::string(300, 'x')};

struct CommandSpec {
  std::string prefix;                // fixed arguments
  std::vector<std::string> flags;    // flags that take a value
  std::vector<std::string> toggles;  // flags without a value
  // Flags given these values unless the case fuzzes them (so a case is never a
  // trivial "given twice" usage error).
  std::vector<std::pair<std::string, std::string>> defaults;
};

class CliFuzzTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    recipe_ = SimRecipe();
    ASSERT_EQ(Servebench("eval make-synthetic --count 4 --output " + Path("gsm.jsonl")).exit_code,
              0);
    Write("empty.db", "");
    fs::create_directories(dir_ / "records");
    baseline_ = TopLevel();
  }

  std::vector<CommandSpec> Commands() const {
    return {
        {"bench --model m",
         {"--num-prompts",
          "--random-input-len",
          "--random-output-len",
          "--random-range-ratio",
          "--random-prefix-len",
          "--request-rate",
          "--burstiness",
          "--max-concurrency",
          "--num-warmups",
          "--request-timeout",
          "--num-workers",
          "--metric-percentiles",
          "--percentile-metrics",
          "--goodput",
          "--temperature",
          "--issue-delay-limit-ms",
          "--api-key-env",
          "--dataset-name",
          "--dataset-path",
          "--arrival",
          "--seed",
          "--base-url",
          "--port",
          "--result-dir",
          "--requests-jsonl"},
         {"--ignore-eos", "--no-progress", "--save-result"},
         {{"--base-url", "http://127.0.0.1:1"}}},
        {"run " + recipe_ + " --out " + Path("out"),
         {"--request-timeout", "--readiness-timeout", "--issue-delay-limit-ms",
          "--prompts-per-concurrency", "--build-date", "--run-id", "--container", "--db", "--conc",
          "--session", "--eval-data", "--config-keys", "--executor"},
         {"--dry-run", "--resume"},
         {{"--db", Path("out/sb.db")}}},
        {"eval --model m --data " + Path("gsm.jsonl"),
         {"--num-concurrent", "--max-tokens", "--timeout-ms", "--max-retries", "--limit",
          "--num-fewshot", "--protocol", "--endpoint", "--fewshot-seed", "--base-url", "--output"},
         {"--no-keep-alive", "--no-progress"},
         {{"--base-url", "http://127.0.0.1:1"}, {"--num-fewshot", "0"}}},
        {"results list",
         {"--limit", "--since", "--until", "--status", "--run-id", "--recipe", "--db"},
         {},
         {{"--db", Path("empty.db")}}},
        {"regress --records " + Path("records"),
         {"--date", "--format", "--db", "--expected", "--output"},
         {"--require-build-identity"},
         {}},
    };
  }

  std::string recipe_;
  std::set<std::string> baseline_;
};

TEST_F(CliFuzzTest, RandomFlagValuesNeverCrashStartNothingOnBadInputAndWriteOnlyUnderOut) {
  std::mt19937 rng(kSeed);
  const std::set<int> documented = {0, 1, 2, 3, 4, 5, 64, 130};
  for (const CommandSpec& command : Commands()) {
    for (int i = 0; i < kCasesPerCommand; ++i) {
      std::string args = command.prefix;
      std::set<std::string> chosen;
      int n = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < n; ++k) {
        const std::string& flag = command.flags[rng() % command.flags.size()];
        const std::string& value = kValues[rng() % kValues.size()];
        if (!chosen.insert(flag).second) continue;
        args += " " + flag + " " + (value[0] == '"' || value == "''" ? value : "'" + value + "'");
      }
      for (const auto& [flag, value] : command.defaults) {
        if (!chosen.count(flag)) args += " " + flag + " " + value;
      }
      if (!command.toggles.empty() && rng() % 3 == 0) {
        args += " " + command.toggles[rng() % command.toggles.size()];
      }
      ShellResult r = Servebench(args);
      if (std::getenv("SERVEBENCH_FUZZ_VERBOSE") != nullptr) {
        std::fprintf(stderr, "exit %d: %s\n", r.exit_code, args.c_str());
      }
      SCOPED_TRACE(args + "\n" + r.output.substr(0, 2000));
      EXPECT_TRUE(documented.count(r.exit_code)) << "exit " << r.exit_code;
      std::set<std::string> now = TopLevel();
      if (r.exit_code == 1 || r.exit_code == 64) {
        EXPECT_TRUE(NoEngineStarted()) << "an engine started on input that was then refused";
      }
      for (const std::string& name : now) {
        if (baseline_.count(name) || name == "out") continue;
        // Only a file the command was told to write may appear: a relative --db,
        // --output, --requests-jsonl.
        bool asked = false;
        for (const char* flag : {"--db", "--output", "--requests-jsonl"}) {
          asked = asked || args.find(std::string(flag) + " '" + name) != std::string::npos;
        }
        EXPECT_TRUE(asked) << name << " was written outside --out";
        fs::remove_all(dir_ / name);
      }
      fs::remove_all(dir_ / "out");
      // A relative --db of "../escape" names a file beside the test's folder.
      for (const char* name : {"escape", "escape-wal", "escape-shm", "escape-journal"}) {
        fs::path beside = dir_.parent_path() / name;
        if (!fs::exists(beside)) continue;
        EXPECT_NE(args.find("--db '../escape'"), std::string::npos) << "wrote " << beside;
        fs::remove_all(beside);
      }
    }
  }
}

}  // namespace
}  // namespace servebench::cli::testing
