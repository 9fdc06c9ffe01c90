// What `servebench run` shares with `servebench nightly`.
#pragma once

#include <CLI/CLI.hpp>

#include "recipe/recipe.h"
#include "run/run_settings.h"
#include "run/slurm.h"

namespace servebench::cli {

// The run id of an invocation that was given none: <UTC time>-<host>-<pid>, a safe id.
// `run`, `nightly` and `search`.
std::string DefaultRunId();

// Adds --out, --db, --resume, the build identity and the eval data flags.
void AddRunFlags(CLI::App& app, run::RunSettings* settings);

// Everything about the run flags that can be checked before the recipes are read:
// run::Validate, --out can be created, --db can be written (cli/flag_checks.h).
Status CheckRunFlags(const run::RunSettings& settings);

// Runs the plan and prints the report; returns the process exit code.
int ExecutePlan(const recipe::Plan& plan, run::RunSettings settings, bool dry_run);

// `--executor slurm` (run_slurm.cc): the `servebench run` command of one array task —
// this invocation's arguments without those the submitter owns (--executor,
// --slurm-*, --no-wait, --dry-run, --out, --db, --session, --run-id, --build-date),
// plus the sweep's one --run-id and --build-date.
std::vector<std::string> SlurmTaskArgv(const std::string& self, int argc, char** argv,
                                       const std::string& run_id, const std::string& build_date);
// Submits one array task per serve session, waits (unless !wait), ingests every
// task's records into settings.db_url, prints each task's outcome; the exit code is
// the worst task's.
int ExecuteOnSlurm(const recipe::Plan& plan, const run::RunSettings& settings,
                   const run::SlurmSettings& slurm, bool wait, bool dry_run,
                   const std::vector<std::string>& task_argv);

}  // namespace servebench::cli
