// servebench validate PATH...: check recipes; report every problem with its location,
// including everything `servebench run` would refuse before starting an engine
// (cli/preflight.h): validate says ok exactly when run would start.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/preflight.h"
#include "common/exit_codes.h"
#include "recipe/recipe.h"

namespace servebench::cli {
namespace {

int RunValidate(int argc, char** argv) {
  CLI::App app{
      "Check recipe files and report every problem, each as\n"
      "file:line:column: field.path: what is wrong; what is allowed.\n"
      "Checks everything `servebench run` checks before it starts an engine (engine\n"
      "commands, simulated models and GPUs, faults, context lengths, limits, evals).\n"
      "Exits 1 when anything is wrong.",
      argv[0]};
  std::vector<std::string> paths;
  std::string runners;
  bool quiet = false;
  app.add_option("PATH", paths, "recipe files (native, InferenceX, runners.yaml, nightly)")
      ->required();
  app.add_option("--runners", runners, "runners.yaml to check runner labels against");
  app.add_flag("-q,--quiet", quiet, "print nothing when all is well");
  run::RunSettings run_settings;
  app.add_option("--eval-data", run_settings.eval_data_path,
                 "as run's: points with evals on a real engine need it (a warning without)");
  app.add_option("--eval-thresholds", run_settings.eval_thresholds_path,
                 "as run's: the eval floors file, checked to load");
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  recipe::Diagnostics diagnostics;
  recipe::RecipeSet set = recipe::LoadRecipes(paths, &diagnostics, runners);
  if (!diagnostics.empty()) std::fputs(diagnostics.ToString().c_str(), stderr);
  if (diagnostics.ok()) {
    // Expansion-time rules (DRAM budgets, node tiling) are checked too.
    auto plan = recipe::ExpandRecipes(set, recipe::MatrixFilters{});
    if (!plan.ok()) {
      std::fprintf(stderr, "%s\n", plan.status().message().c_str());
      return kExitInvalidInput;
    }
    // What run checks before it starts anything (preflight.h).
    recipe::Diagnostics runnable =
        CheckPlanRunnable(set, *plan, run_settings, PreflightFor::kValidate);
    if (!runnable.empty()) std::fputs(runnable.ToString().c_str(), stderr);
    if (!runnable.ok()) {
      std::fprintf(stderr,
                   "servebench validate: %zu problem(s) that `servebench run` would refuse\n",
                   runnable.error_count());
      return kExitInvalidInput;
    }
    if (!quiet)
      std::printf("ok: %zu recipe(s), %zu point(s) in %zu file(s)\n", set.recipes.size(),
                  plan->points.size(), paths.size());
    return kExitOk;
  }
  std::fprintf(stderr, "servebench validate: %zu problem(s)\n", diagnostics.error_count());
  return kExitInvalidInput;
}

const CommandRegistration kRegister{
    {"validate", "check recipes; every problem, with location", RunValidate}};

}  // namespace
}  // namespace servebench::cli
