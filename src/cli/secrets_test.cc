// Secrets: the values of a recipe's `env` reach the engine's environment and nothing
// else. A real run's outputs (records, report, logs, request files), the SQLite
// store, `matrix --format jsonl` and `run --dry-run` are searched byte for byte: the
// secret is nowhere, its name is kept, and a value listed in env_not_secret is shown.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"

namespace servebench::cli::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "hf_DOOR_SECRET_9f3a1c";

// Files under `root` (recursively) whose bytes contain `needle`.
std::vector<std::string> FilesContaining(const fs::path& root, const std::string& needle) {
  std::vector<std::string> hits;
  if (!fs::exists(root)) return hits;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    if (servebench::testing::ReadFileOrEmpty(e.path().string()).find(needle) != std::string::npos) {
      hits.push_back(e.path().string());
    }
  }
  return hits;
}

class SecretsTest : public CliTest {
 protected:
  std::string Recipe() {
    return SimRecipe("recipe.yaml", std::string("    env:\n      HF_TOKEN: ") + kSecret +
                                        "\n      DOOR_BACKEND: flashinfer-visible\n"
                                        "    env_not_secret: [DOOR_BACKEND]\n");
  }
};

TEST_F(SecretsTest, NoOutputOfARunHoldsAnEnvValue) {
  std::string recipe = Recipe();
  ShellResult r = Servebench("run " + recipe + RunFlags());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr(kSecret)));
  // Records, report, engine logs, request files, and the store (out/sb.db, with its
  // WAL), byte for byte.
  EXPECT_EQ(FilesContaining(dir_ / "out", kSecret), std::vector<std::string>{});
  // The record keeps the name, with the value redacted; the listed one is shown.
  std::vector<std::string> records = FilesContaining(dir_ / "out" / "records", "HF_TOKEN");
  ASSERT_EQ(records.size(), 1u);
  std::string record = servebench::testing::ReadFileOrEmpty(records[0]);
  EXPECT_THAT(record, HasSubstr("\"HF_TOKEN\":\"<redacted>\""));
  EXPECT_THAT(record, HasSubstr("\"DOOR_BACKEND\":\"flashinfer-visible\""));
  ShellResult shown = Servebench("results export --format json --db " + Path("out/sb.db"));
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_THAT(shown.output, HasSubstr("<redacted>"));
  EXPECT_THAT(shown.output, Not(HasSubstr(kSecret)));
}

TEST_F(SecretsTest, MatrixAndDryRunShowNamesNotValues) {
  std::string recipe = Recipe();
  for (const std::string& command :
       {"matrix --format jsonl " + recipe, "matrix --format json " + recipe, "matrix " + recipe,
        "run --dry-run " + recipe + RunFlags()}) {
    ShellResult r = Servebench(command);
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr(kSecret))) << command;
  }
  EXPECT_THAT(Servebench("run --dry-run " + recipe + RunFlags()).output,
              HasSubstr("HF_TOKEN='<redacted>'"));
  EXPECT_THAT(Servebench("matrix --format jsonl " + recipe).output,
              HasSubstr("\"HF_TOKEN\":\"<redacted>\""));
}

TEST_F(SecretsTest, TheEngineStillGetsTheValue) {
  // Redaction is for outputs only: a stand-in engine reports whether it was started
  // with the real value (and stops, so the run ends fast).
  std::string fake = Write("bin/vllm",
                           "#!/bin/sh\n"
                           "if [ \"$HF_TOKEN\" = \"" +
                               std::string(kSecret) +
                               "\" ]; then\n"
                               "  echo 'error: token ok, stopping here on purpose'\n"
                               "else\n"
                               "  echo 'error: token missing'\n"
                               "fi\n"
                               "exit 1\n");
  ASSERT_EQ(::system(("chmod 755 " + fake).c_str()), 0);
  std::string recipe = Write(
      "real.yaml",
      std::string("servebench: 1\nrecipes:\n  door-vllm:\n    engine: vllm\n    model: org/m\n"
                  "    hardware: h200\n    env:\n      HF_TOKEN: ") +
          kSecret +
          "\n    scenarios:\n      - isl: 32\n        osl: 8\n"
          "        search_space:\n          - tp: 1\n            concurrency: 1\n");
  ShellResult r = Servebench("run " + recipe + RunFlags(), "PATH=" + Path("bin") + ":$PATH");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("token ok"));
  EXPECT_THAT(r.output, Not(HasSubstr(kSecret)));
}

}  // namespace
}  // namespace servebench::cli::testing
