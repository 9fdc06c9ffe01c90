// `servebench validate` and `servebench matrix` end to end: the real binary, real
// files, exit codes and located messages.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/testing/shell.h"

namespace {

using Result = servebench::testing::ShellResult;
using servebench::testing::RunServebench;

const std::string kRoot = std::string(SERVEBENCH_SOURCE_DIR) + "/";

std::string TempFile(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() /
              ("sb_recipe_cli_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(RecipeCliTest, ExamplesAndSeedsValidate) {
  Result r = RunServebench("validate " + kRoot + "examples/quickstart.yaml " + kRoot +
                           "examples/minimaxm3-mi355x-mtp.yaml " + kRoot +
                           "src/recipe/testdata/minimax_m3_mi355x.workload.yaml");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ok: 3 recipe(s), 82 point(s)"), std::string::npos) << r.output;
}

// Issue 17's seed (a): the native example carries the seed PR's serve script, so its
// dry run shows every flag and setting of it: MiniMax-M3's mandatory block size and
// attention backend, the parsers, the device mapping, the draft downloaded into the
// shared HF cache, and the client's chat template (servebench's chat path).
TEST(RecipeCliTest, TheSeedExamplesDryRunShowsTheSeedScriptsFlags) {
  Result r = RunServebench("run " + kRoot +
                           "examples/minimaxm3-mi355x-mtp.yaml --dry-run "
                           "--no-evals --out " +
                           std::filesystem::temp_directory_path().string() + "/sb_seed_dry_run");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* shown :
       {"--block-size 128", "--language-model-only", "--kv-cache-dtype fp8",
        "--attention-backend TRITON_ATTN", "--enforce-eager", "--tool-call-parser minimax_m3",
        "--reasoning-parser minimax_m3", "--trust-remote-code",
        "# HIP_VISIBLE_DEVICES is $ROCR_VISIBLE_DEVICES", "hf download Inferact/MiniMax-M3-EAGLE3",
        "--speculative-config.model Inferact/MiniMax-M3-EAGLE3",
        "to /v1/chat/completions as chat messages: the server applies the model's chat template"})
    EXPECT_NE(r.output.find(shown), std::string::npos) << shown << "\n" << r.output;
}

TEST(RecipeCliTest, BrokenRecipeExitsOneWithEveryLocatedProblem) {
  std::string path = TempFile("broken.yaml",
                              "servebench: 1\nrecipes:\n  r:\n    engine: vlm\n    model: m\n"
                              "    hardware: h200\n    scenarios:\n      - isl: 1\n        osl: 1\n"
                              "        search_space:\n          - {tp: 1, concurency: [1]}\n");
  Result r = RunServebench("validate " + path);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find(path + ":4:13: r.engine: is 'vlm'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(":11:21: r.scenarios[0].search_space[0].concurency: unknown field"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("did you mean 'concurrency'?"), std::string::npos) << r.output;
  Result m = RunServebench("matrix " + path);
  EXPECT_EQ(m.exit_code, 1);
  std::filesystem::remove(path);
}

TEST(RecipeCliTest, BinaryAndMissingFilesExitOne) {
  EXPECT_EQ(RunServebench("validate /bin/sh").exit_code, 1);
  Result r = RunServebench("validate /nonexistent/recipe.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("cannot read"), std::string::npos);
}

TEST(RecipeCliTest, MatrixJsonOfTheSeedIsTheInferenceXShape) {
  Result r = RunServebench("matrix --format json --no-evals " + kRoot +
                           "src/recipe/testdata/minimaxm3-mi355x-mtp.inferencex.yaml");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output.rfind("[{\"image\": \"vllm/vllm-openai-rocm:minimax-m3\", \"model\": ", 0), 0u)
      << r.output.substr(0, 200);
}

TEST(RecipeCliTest, ConflictingEvalFlagsAreAUsageError) {
  Result r = RunServebench("matrix --no-evals --all-evals " + kRoot + "examples/quickstart.yaml");
  EXPECT_EQ(r.exit_code, 64);
}

TEST(RecipeCliTest, HelpWorks) {
  EXPECT_EQ(RunServebench("matrix --help").exit_code, 0);
  EXPECT_EQ(RunServebench("validate --help").exit_code, 0);
}

}  // namespace
