// servebench validate PATH...: check recipes; report every problem with its location.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/command.h"
#include "common/exit_codes.h"
#include "recipe/recipe.h"

namespace servebench::cli {
namespace {

int RunValidate(int argc, char** argv) {
  CLI::App app{
      "Check recipe files and report every problem, each as\n"
      "file:line:column: field.path: what is wrong; what is allowed.\n"
      "Exits 1 when anything is wrong.",
      argv[0]};
  std::vector<std::string> paths;
  std::string runners;
  bool quiet = false;
  app.add_option("PATH", paths, "recipe files (native, InferenceX, runners.yaml, nightly)")
      ->required();
  app.add_option("--runners", runners, "runners.yaml to check runner labels against");
  app.add_flag("-q,--quiet", quiet, "print nothing when all is well");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
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
