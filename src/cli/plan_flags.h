// The recipe-and-filter flags shared by `matrix`, `run` and `nightly`, defined once
// so the three commands select points identically.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "recipe/agentic_trace.h"
#include "recipe/recipe.h"
#include "run/run_settings.h"

namespace servebench::cli {

struct PlanFlags {
  std::vector<std::string> paths;
  std::string runners;
  recipe::MatrixFilters filters;
  bool single = false, multi = false, no_evals = false, evals_only = false, all_evals = false;
  // Applied after expansion: only these serve sessions (full ids or unique prefixes,
  // as `matrix --format buildkite` steps pass them) / only points marked nightly.
  std::vector<std::string> sessions;
  bool nightly_only = false;
  // An InferenceX checkout: single-node InferenceX points launch the command their
  // benchmark script runs (captured, capture/capture.h), not a rendered one.
  std::string inferencex_root;
  // Rehearsal: "sim" serves every point with `servebench sim` standing in for its
  // engine (run/sim_rehearsal.h), at `sim_time_scale` wall seconds per simulated
  // second (0 = each sim point's own).
  std::string engine;
  double sim_time_scale = 0;
  // Agentic-coding points: the trace each replays and for how long
  // (recipe/agentic_trace.h), bound before capture and rehearsal.
  recipe::AgenticTraceSettings agentic;
  // speed_bench points: the prepared SPEED-Bench folder (cli/conversation_datasets.h).
  std::string speed_bench_dir;
};

// Adds PATH... and every filter flag to `app`, writing into `flags`.
void AddPlanFlags(CLI::App& app, PlanFlags* flags);

// Loads and expands the recipes, binds agentic points to their trace (--trace) and
// speed_bench / spec_bench points to their file (--speed-bench-dir), then
// (with --engine sim) turns the points into their
// simulated twins before --session selects among them. Prints every diagnostic to
// stderr (prefixed with `command`); InvalidArgument when any recipe is invalid, a
// filter is malformed or a point cannot be rehearsed.
// With `run_settings` (run, nightly) the selected points are also checked as the run
// would start them (cli/preflight.h), so nothing starts on a plan that would fail.
// With inferencex_root, captures the selected InferenceX points' launches and prints
// the capture report (splits, failures) to stderr; InvalidArgument when a selected
// point cannot be captured (nothing runs on a plan that is not what InferenceX runs).
StatusOr<recipe::Plan> LoadPlan(PlanFlags flags, const char* command,
                                const run::RunSettings* run_settings = nullptr);

}  // namespace servebench::cli
