// What `servebench run` shares with `servebench nightly`.
#pragma once

#include <CLI/CLI.hpp>

#include "recipe/recipe.h"
#include "run/run_settings.h"

namespace servebench::cli {

// Adds --out, --db, --resume, the build identity and the eval data flags.
void AddRunFlags(CLI::App& app, run::RunSettings* settings);

// Runs the plan and prints the report; returns the process exit code.
int ExecutePlan(const recipe::Plan& plan, run::RunSettings settings, bool dry_run);

}  // namespace servebench::cli
