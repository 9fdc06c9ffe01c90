// Test-only: what the CLI tests share: a fresh working folder per test (the binary
// runs with it as its current directory, so a stray file is seen), small sim
// recipes, and checks that nothing was started or written. Header-only.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "common/testing/files.h"
#include "common/testing/shell.h"

namespace servebench::cli::testing {

namespace fs = std::filesystem;
using servebench::testing::ShellResult;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sb_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& rel) const { return (dir_ / rel).string(); }

  std::string Write(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
    return Path(rel);
  }

  // servebench ARGS in the test's folder; `env` ("NAME=value ...") first.
  ShellResult Servebench(const std::string& args, const std::string& env = "") const {
    return servebench::testing::RunShell("cd " + dir_.string() + " && " + env +
                                         (env.empty() ? "" : " ") + SERVEBENCH_BIN + " " + args);
  }

  // A native sim recipe (llama-3.1-8b on h200, as fast as the socket allows);
  // `recipe_extra` goes inside the recipe, `entry_extra` inside its search-space entry.
  std::string SimRecipe(const std::string& name = "recipe.yaml",
                        const std::string& recipe_extra = "", const std::string& concurrency = "1",
                        int isl = 32, int osl = 8, const std::string& entry_extra = "") const {
    std::ostringstream y;
    y << "servebench: 1\nrecipes:\n  door-sim:\n    engine: sim\n    model: llama-3.1-8b\n"
      << "    hardware: h200\n    precision: bf16\n    readiness_timeout_s: 30\n"
      << "    sim:\n      time_scale: 0\n      seed: 7\n"
      << recipe_extra << "    load:\n      dataset: random\n      num_prompts: 4\n"
      << "    scenarios:\n      - isl: " << isl << "\n        osl: " << osl << "\n"
      << "        search_space:\n          - tp: 1\n            concurrency: " << concurrency
      << "\n"
      << entry_extra;
    return Write(name, y.str());
  }

  // The run flags every test passes: results inside the test's folder, a client-delay
  // limit a shared CI machine keeps.
  std::string RunFlags(const std::string& out = "out") const {
    // Loose validity limits: a compressed sim on shared CI cores magnifies every hiccup
    // (its numbers are simulated time); the limits themselves are tested elsewhere.
    return " --out " + Path(out) + " --db " + Path(out + "/sb.db") +
           " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000 ";
  }

  // True when no engine was started for `out` (an engine start writes its log first).
  bool NoEngineStarted(const std::string& out = "out") const {
    fs::path logs = dir_ / out / "logs";
    return !fs::exists(logs) || fs::is_empty(logs);
  }

  // Every entry directly in the test's folder.
  std::set<std::string> TopLevel() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }

  fs::path dir_;
};

}  // namespace servebench::cli::testing
