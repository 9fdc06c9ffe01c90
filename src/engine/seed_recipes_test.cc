// The seed recipes (testdata/seed/) loaded by recipe/, expanded into serve sessions
// and rendered by the engine adapters, as `servebench run --dry-run` shows them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "engine/engine.h"
#include "engine/testing/golden.h"
#include "recipe/recipe.h"

namespace servebench::engine {
namespace {

using testing::ExpectMatchesGolden;

std::string SeedPath(const std::string& name) {
  return std::string(SERVEBENCH_SOURCE_DIR) + "/src/engine/testdata/seed/" + name;
}

RenderOptions Options() {
  RenderOptions options;
  options.port = 8000;
  options.work_dir = "/out/session";
  return options;
}

std::vector<recipe::ServeSession> LoadSessions(const std::string& file, std::string* load_problem) {
  recipe::Diagnostics diagnostics;
  recipe::RecipeSet set = recipe::LoadRecipes({SeedPath(file)}, &diagnostics);
  if (!diagnostics.ok()) {
    *load_problem = diagnostics.ToString();
    return {};
  }
  auto plan = recipe::ExpandRecipes(set, recipe::MatrixFilters{});
  if (!plan.ok()) {
    *load_problem = plan.status().ToString();
    return {};
  }
  return recipe::GroupSessions(plan->points);
}

std::string RenderSessions(const std::vector<recipe::ServeSession>& sessions) {
  std::string out;
  for (size_t i = 0; i < sessions.size(); ++i) {
    const recipe::Point& first = sessions[i].points.front();
    std::string concs;
    for (const auto& p : sessions[i].points)
      concs += (concs.empty() ? "" : ",") + std::to_string(p.load.concurrency);
    auto command = RenderServerCommand(first.serve, Options());
    EXPECT_TRUE(command.ok()) << "session " << i << ": " << command.status().ToString();
    if (!command.ok()) continue;
    const std::string title = "serve session " + std::to_string(i + 1) + "/" +
                              std::to_string(sessions.size()) + ": " + first.recipe + " " +
                              first.exp_name + ", concurrency " + concs;
    out += FormatSessionForDisplay(title, *command) + "\n";
  }
  return out;
}

TEST(SeedRecipesTest, InferencexMi355xMtpRecipeRendersEverySession) {
  std::string problem;
  auto sessions = LoadSessions("minimaxm3-mi355x-mtp.inferencex.yaml", &problem);
  ASSERT_FALSE(sessions.empty()) << problem;
  size_t points = 0;
  for (const auto& s : sessions) points += s.points.size();
  EXPECT_EQ(points, 53u);  // the seed's stated row count
  ExpectMatchesGolden("seed_minimaxm3_mi355x_mtp_inferencex", RenderSessions(sessions));
}

TEST(SeedRecipesTest, NightlyMi355xEagle3WorkloadRendersItsServeArgsExactly) {
  std::string problem;
  auto sessions = LoadSessions("minimax_m3_mi355x.workload.yaml", &problem);
  ASSERT_EQ(sessions.size(), 1u) << problem;
  auto command = RenderServerCommand(sessions[0].points.front().serve, Options());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  // perf-eval: `vllm serve <model> --port <port> <serve_args>`; servebench adds --host.
  std::vector<std::string> expected = {
      "vllm", "serve", "MiniMaxAI/MiniMax-M3-MXFP8", "--host", "127.0.0.1", "--port", "8000"};
  std::istringstream serve_args(
      "--tensor-parallel-size 8 --trust-remote-code --tool-call-parser minimax_m3 "
      "--enable-auto-tool-choice --reasoning-parser minimax_m3 --speculative-config.method eagle3 "
      "--speculative-config.model Inferact/MiniMax-M3-EAGLE3 "
      "--speculative-config.num_speculative_tokens 3");
  for (std::string w; serve_args >> w;) expected.push_back(w);
  EXPECT_EQ(command->argv, expected);
  EXPECT_EQ(command->env.at("VLLM_USE_BREAKABLE_CUDAGRAPH"), "0");
}

}  // namespace
}  // namespace servebench::engine
