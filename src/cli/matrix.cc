// servebench matrix PATH... [filters] [--format ...]: expand recipes into the sweep.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/plan_flags.h"
#include "common/exit_codes.h"
#include "recipe/matrix_output.h"
#include "recipe/recipe.h"
#include "record/labels.h"
#include "record/record_builder.h"

namespace servebench::cli {
namespace {

int RunMatrix(int argc, char** argv) {
  CLI::App app{"Expand recipes into sweep points, with InferenceX's rules.", argv[0]};
  PlanFlags flags;
  std::string format = "table";
  AddPlanFlags(app, &flags);
  app.add_option("--format", format, "table | json | jsonl | github | buildkite")
      ->check(CLI::IsMember({"table", "json", "jsonl", "github", "buildkite"}));
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  auto plan = LoadPlan(flags, "matrix");
  if (!plan.ok()) {
    std::fprintf(stderr, "servebench matrix: %s\n", plan.status().message().c_str());
    return kExitInvalidInput;
  }
  // Step labels name the configuration as every report does (record/labels.h).
  auto config_label = [](const recipe::ServeSpec& serve) {
    return record::ConfigLabel(record::DeploymentOf(serve));
  };
  std::string out =
      recipe::RenderMatrix(*plan, *recipe::ParseMatrixFormat(format), flags.paths, config_label);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

const CommandRegistration kRegister{
    {"matrix", "expand recipes into the sweep (table, json, jsonl, github, buildkite)", RunMatrix}};

}  // namespace
}  // namespace servebench::cli
