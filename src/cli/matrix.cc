// servebench matrix PATH... [filters] [--format ...]: expand recipes into the sweep.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "common/exit_codes.h"
#include "recipe/matrix_output.h"
#include "recipe/recipe.h"
#include "cli/command.h"

namespace servebench::cli {
namespace {

int RunMatrix(int argc, char** argv) {
  CLI::App app{"Expand recipes into sweep points, with InferenceX's rules.", argv[0]};
  std::vector<std::string> paths;
  std::string runners, format = "table";
  recipe::MatrixFilters f;
  bool single = false, multi = false, no_evals = false, evals_only = false, all_evals = false;
  app.add_option("PATH", paths, "recipe files: native, InferenceX master config(s), runners.yaml, "
                                "nightly workload")
      ->required();
  app.add_option("--format", format, "table | json | jsonl | github | buildkite")
      ->check(CLI::IsMember({"table", "json", "jsonl", "github", "buildkite"}));
  app.add_option("--runners", runners, "runners.yaml (default: one beside the master config)");
  app.add_option("--config-keys", f.config_keys, "recipe names or globs (* ?); each must match")
      ->delimiter(',')->allow_extra_args(false);
  app.add_option("--seq-lens", f.seq_lens, "1k1k, 8k1k, 1k8k or <isl>x<osl>")->delimiter(',')->allow_extra_args(false);
  app.add_option("--conc", f.conc, "keep only these concurrencies")->delimiter(',')->allow_extra_args(false);
  app.add_option("--runner", f.runners, "runner labels")->delimiter(',')->allow_extra_args(false);
  app.add_option("--framework", f.frameworks, "frameworks / engines")->delimiter(',')->allow_extra_args(false);
  app.add_option("--precision", f.precisions, "precisions (fp4, fp8, ...)")->delimiter(',')->allow_extra_args(false);
  app.add_option("--model-prefix", f.model_prefixes,
                 "model prefixes (matches a config key's prefix or its model-prefix)")
      ->delimiter(',')->allow_extra_args(false);
  app.add_option("--scenario-type", f.scenario_types, "fixed-seq-len and/or agentic-coding")
      ->delimiter(',')->allow_extra_args(false);
  app.add_option("--runner-node-filter", f.runner_node_filter,
                 "one row per runner node whose name contains this");
  app.add_flag("--single-node", single, "only single-node points");
  app.add_flag("--multi-node", multi, "only multinode points");
  auto* ne = app.add_flag("--no-evals", no_evals, "mark no evals");
  auto* eo = app.add_flag("--evals-only", evals_only, "only the eval points (eval-only)");
  auto* ae = app.add_flag("--all-evals", all_evals, "every 8k1k fixed point runs evals");
  ne->excludes(eo);
  ne->excludes(ae);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  if (single || multi) {
    f.single_node = single;
    f.multi_node = multi;
  }
  if (no_evals) f.evals = recipe::EvalSelection::kNone;
  else if (evals_only && all_evals) f.evals = recipe::EvalSelection::kOnlyAll;
  else if (all_evals) f.evals = recipe::EvalSelection::kAll;
  else if (evals_only) f.evals = recipe::EvalSelection::kOnly;

  recipe::Diagnostics diagnostics;
  recipe::RecipeSet set = recipe::LoadRecipes(paths, &diagnostics, runners);
  if (!diagnostics.empty()) std::fputs(diagnostics.ToString().c_str(), stderr);
  if (!diagnostics.ok()) {
    std::fprintf(stderr, "servebench matrix: %zu problem(s); nothing expanded\n",
                 diagnostics.error_count());
    return kExitInvalidInput;
  }
  auto plan = recipe::ExpandRecipes(set, f);
  if (!plan.ok()) {
    std::fprintf(stderr, "servebench matrix: %s\n", plan.status().message().c_str());
    return kExitInvalidInput;
  }
  std::string out = recipe::RenderMatrix(*plan, *recipe::ParseMatrixFormat(format), paths);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

const CommandRegistration kRegister{
    {"matrix", "expand recipes into the sweep (table, json, jsonl, github, buildkite)", RunMatrix}};

}  // namespace
}  // namespace servebench::cli
