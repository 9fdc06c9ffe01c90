// Launch capture over a real InferenceX checkout: SERVEBENCH_INFERENCEX_ROOT names
// it (skipped otherwise; the suite never needs one). Every single-node row of the
// master configs is captured (SERVEBENCH_INFERENCEX_KEYS narrows it to some keys); the report (keys
// captured, keys not and why) is printed, and written to $SERVEBENCH_CAPTURE_REPORT when set.
// Checked for every captured serve session: its dry run, executed with recorders, starts exactly
// the captured argv and environment (and the router's, after the engine, when one fronts it); no
// point holds a secret; the native recipe written from the capture gives the same points.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <set>

#include "capture/capture.h"
#include "capture/recipe_writer.h"
#include "capture/testing/dry_run_replay.h"
#include "common/atomic_file.h"
#include "engine/engine.h"

namespace servebench::capture {
namespace {

TEST(InferenceXCheckoutTest, EverySingleNodeRowIsCapturedOrSaysWhyAndDryRunsExactly) {
  const char* root = std::getenv("SERVEBENCH_INFERENCEX_ROOT");
  if (root == nullptr || *root == '\0') {
    GTEST_SKIP() << "SERVEBENCH_INFERENCEX_ROOT is not set: point it at an InferenceX checkout "
                    "(e.g. git archive of SemiAnalysisAI/InferenceX) to run this check";
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(root) + "/configs")) {
    std::string name = entry.path().filename().string();
    if (name.size() > 12 && name.compare(name.size() - 12, 12, "-master.yaml") == 0)
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  files.push_back(std::string(root) + "/configs/runners.yaml");
  recipe::Diagnostics d;
  recipe::RecipeSet set = recipe::LoadRecipes(files, &d);
  ASSERT_TRUE(d.ok()) << d.ToString();
  // SERVEBENCH_INFERENCEX_KEYS (config keys or globs, comma-separated) narrows the
  // check to those keys, for a quick rerun; unset, every key is checked.
  recipe::MatrixFilters filters;
  if (const char* keys = std::getenv("SERVEBENCH_INFERENCEX_KEYS"); keys != nullptr) {
    std::string list = keys;
    for (size_t at = 0; at <= list.size();) {
      size_t comma = std::min(list.find(',', at), list.size());
      if (comma > at) filters.config_keys.push_back(list.substr(at, comma - at));
      at = comma + 1;
    }
  }
  auto plan = recipe::ExpandRecipes(set, filters);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  CaptureSettings settings;
  settings.inferencex_root = root;
  auto report = CaptureInferenceXLaunches(&*plan, set.runners, settings);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  std::string text = FormatCaptureReport(*report, true);
  std::cout << text;
  if (const char* out = std::getenv("SERVEBENCH_CAPTURE_REPORT"); out != nullptr) {
    ASSERT_TRUE(WriteFileAtomically(out, text).ok());
  }

  int sessions = 0, in_container = 0, behind_router = 0;
  for (const auto& session : recipe::GroupSessions(plan->points)) {
    const recipe::Point& p = session.points.front();
    std::string json = recipe::PointToJson(p);
    EXPECT_EQ(json.find("servebench-capture-"), std::string::npos) << p.recipe;
    if (p.serve.command.argv.empty()) continue;
    testing::TempFolder dir("checkout-replay");
    engine::RenderOptions options;
    options.work_dir = dir.path() + "/engine-config";
    // A command naming its files under /workspace runs only in a container.
    if (!p.serve.command.folder.empty())
      options.container.kind = engine::ContainerProfile::Kind::kDocker;
    const std::map<std::string, std::string> launch = {{"ROCR_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"},
                                                       {"CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"},
                                                       {"HF_TOKEN", "a-real-token-at-launch"},
                                                       {"HF_HUB_CACHE", dir.path() + "/hub"}};
    // What the dry run starts: the captured command, its snapshot folders resolved.
    const recipe::ServeSpec started = testing::WithReplayHubCache(p.serve, dir.path() + "/hub");
    options.lookup_env = [&](const std::string& name) -> std::optional<std::string> {
      auto it = launch.find(name);
      return it == launch.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    // As run --dry-run renders it: with env values a secret would be redacted in.
    auto command = engine::RenderServerCommand(recipe::WithSecretsRedacted(p).serve, options);
    ASSERT_TRUE(command.ok()) << p.recipe << ": " << command.status().ToString();
    std::string shown = engine::FormatCommandForDisplay(*command);
    std::vector<CallRecord> calls = testing::ReplayDryRun(shown, dir.path(), launch);
    const size_t router_calls = p.serve.command.router.argv.empty() ? 0 : 2;  // curl, router
    ASSERT_EQ(calls.size(),
              p.serve.prepare.size() + p.serve.command.auxiliary.size() + 1 + router_calls)
        << p.recipe << "\n"
        << shown;
    EXPECT_EQ(testing::TakeRouterCall(started, &calls), "") << p.recipe << "\n" << shown;
    if (!p.serve.command.router.argv.empty()) ++behind_router;
    calls.erase(calls.begin(), calls.begin() + p.serve.prepare.size());
    EXPECT_EQ(testing::TakeAuxiliaryCalls(started, &calls), "") << p.recipe << "\n" << shown;
    ASSERT_EQ(calls.size(), 1u) << p.recipe;
    std::vector<std::string> argv = {calls.back().tool};
    argv.insert(argv.end(), calls.back().argv.begin(), calls.back().argv.end());
    std::map<std::string, std::string> expected = started.env;
    for (const auto& [name, source] : p.serve.env_from)
      if (launch.count(source)) expected[name] = launch.at(source);
    if (p.serve.command.folder.empty()) {
      EXPECT_EQ(argv, started.command.argv) << p.recipe;
      std::map<std::string, std::string> env = calls.back().env;
      for (const char* shell : {"PATH", "RECORD_DIR", "PWD", "OLDPWD", "SHLVL", "_"})
        env.erase(shell);
      for (const auto& [name, value] : launch) env.erase(name);
      EXPECT_EQ(env, expected) << p.recipe;
    } else {
      // docker run ... -v WORK:/workspace ... -e K=V ... -w /workspace --entrypoint
      // ARGV0 IMAGE ARGV...: the captured command, in its folder, with its environment.
      ++in_container;
      std::string line = engine::JoinForShell(argv);
      EXPECT_THAT(line, ::testing::HasSubstr("-v " + options.work_dir + ":/workspace"));
      EXPECT_THAT(line, ::testing::HasSubstr(
                            "-w /workspace --entrypoint " + started.command.argv[0] + " " +
                            engine::ShellQuote(p.serve.image) + " " +
                            engine::JoinForShell(std::vector<std::string>(
                                started.command.argv.begin() + 1, started.command.argv.end()))))
          << p.recipe;
      for (const auto& [k, v] : expected)
        EXPECT_THAT(line, ::testing::HasSubstr("-e " + k + "=" + v)) << p.recipe;
    }
    ++sessions;
  }
  std::cout << sessions << " captured serve session(s) replayed exactly, " << in_container
            << " of them in a container (a /workspace folder), " << behind_router
            << " behind a router\n";
  EXPECT_GT(sessions, 0);

  auto written = WriteNativeRecipes(plan->points, "captured");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  recipe::RecipeSet native = recipe::LoadRecipeText(written->yaml, "captured.yaml", &d);
  ASSERT_TRUE(d.ok()) << d.ToString();
  auto native_plan = recipe::ExpandRecipes(native, recipe::MatrixFilters{});
  ASSERT_TRUE(native_plan.ok()) << native_plan.status().ToString();
  auto identity = [](const recipe::Point& p) {
    boost::json::object o = boost::json::parse(recipe::PointToJson(p)).as_object();
    return boost::json::serialize(o["serve"]) + boost::json::serialize(o["load"]) + p.recipe;
  };
  std::multiset<std::string> captured, reloaded;
  for (const auto& p : plan->points)
    if (!p.serve.command.argv.empty()) captured.insert(identity(p));
  for (const auto& p : native_plan->points) reloaded.insert(identity(p));
  // On a mismatch, only what differs (the sets hold hundreds of long identities).
  std::vector<std::string> only_reloaded, only_captured;
  std::set_difference(reloaded.begin(), reloaded.end(), captured.begin(), captured.end(),
                      std::back_inserter(only_reloaded));
  std::set_difference(captured.begin(), captured.end(), reloaded.begin(), reloaded.end(),
                      std::back_inserter(only_captured));
  EXPECT_TRUE(only_reloaded.empty() && only_captured.empty())
      << "only after writing and reloading:\n"
      << ::testing::PrintToString(only_reloaded) << "\nonly as captured:\n"
      << ::testing::PrintToString(only_captured);
}

}  // namespace
}  // namespace servebench::capture
