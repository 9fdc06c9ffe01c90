#include "cli/plan_flags.h"

#include <fmt/format.h>

#include <cstdio>

#include "capture/capture.h"
#include "cli/conversation_datasets.h"
#include "cli/preflight.h"
#include "run/sim_rehearsal.h"

namespace servebench::cli {

void AddPlanFlags(CLI::App& app, PlanFlags* p) {
  recipe::MatrixFilters& f = p->filters;
  app.add_option(
         "PATH", p->paths,
         "recipe files: native, InferenceX master config(s), runners.yaml, nightly workload")
      ->required();
  app.add_option("--runners", p->runners, "runners.yaml (default: one beside the master config)");
  app.add_option("--config-keys", f.config_keys, "recipe names or globs (* ?); each must match")
      ->delimiter(',');
  app.add_option("--seq-lens", f.seq_lens, "1k1k, 8k1k, 1k8k or <isl>x<osl>")->delimiter(',');
  app.add_option("--conc", f.conc, "keep only these concurrencies")->delimiter(',');
  app.add_option("--runner", f.runners, "runner labels")->delimiter(',');
  app.add_option("--framework", f.frameworks, "frameworks / engines")->delimiter(',');
  app.add_option("--precision", f.precisions, "precisions (fp4, fp8, ...)")->delimiter(',');
  app.add_option("--model-prefix", f.model_prefixes,
                 "model prefixes (matches a config key's prefix or its model-prefix)")
      ->delimiter(',');
  app.add_option("--scenario-type", f.scenario_types, "fixed-seq-len and/or agentic-coding")
      ->delimiter(',');
  app.add_option("--runner-node-filter", f.runner_node_filter,
                 "one row per runner node whose name contains this");
  app.add_flag("--single-node", p->single, "only single-node points");
  app.add_flag("--multi-node", p->multi, "only multinode points");
  auto* ne = app.add_flag("--no-evals", p->no_evals, "mark no evals");
  auto* eo = app.add_flag("--evals-only", p->evals_only, "only the eval points (eval-only)");
  auto* ae = app.add_flag("--all-evals", p->all_evals, "every 8k1k fixed point runs evals");
  ne->excludes(eo);
  ne->excludes(ae);
  app.add_option("--session", p->sessions,
                 "only these serve sessions (session ids or prefixes; CI steps pass one)")
      ->delimiter(',');
  app.add_flag("--nightly", p->nightly_only, "only points whose recipe is marked nightly");
  app.add_option("--inferencex-root", p->inferencex_root,
                 "InferenceX checkout: InferenceX points launch exactly what their benchmark "
                 "script launches (captured with stand-ins, as `servebench import inferencex`)");
  app.add_option("--engine", p->engine,
                 "sim: rehearse every point on the simulator (servebench sim standing in for the "
                 "point's engine, same model, hardware, parallelism and load)")
      ->check(CLI::IsMember({"sim"}));
  app.add_option("--sim-time-scale", p->sim_time_scale,
                 "simulated engines: wall seconds per simulated second (0.05 runs 20x faster than "
                 "real time; numbers stay in simulated time); default: each recipe's own")
      ->check(CLI::PositiveNumber);
  app.add_option(
      "--trace", p->agentic.trace_path,
      "agentic-coding points: the trace to replay, a file or folder "
      "(mooncake_trace, weka_trace, bailian_trace), or a folder holding InferenceX's loader "
      "folders (<loader>/, e.g. semianalysis_cc_traces_weka_062126/)");
  app.add_option(
      "--trace-format", p->agentic.trace_format,
      "mooncake_trace, weka_trace or bailian_trace (default: detected from the content)");
  app.add_option("--speed-bench-dir", p->speed_bench_dir,
                 "speed_bench points: the folder holding <subset>.jsonl as NVIDIA's prepare.py "
                 "writes it (default: $VLLM_SPEED_BENCH_DIR, as perf-eval)");
  app.add_option("--duration", p->agentic.duration_s,
                 "agentic-coding points: seconds of replay instead of the row's (3600)");
}

namespace {

// The preflight over the selected points (preflight.h).
Status Preflight(const recipe::RecipeSet& set, const recipe::Plan& plan,
                 const run::RunSettings& settings) {
  recipe::Diagnostics problems = CheckPlanRunnable(set, plan, settings, PreflightFor::kRun);
  if (!problems.empty()) std::fputs(problems.ToString().c_str(), stderr);
  if (problems.ok()) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "{} problem(s) that would stop the run after its engines started; nothing was launched "
      "(`servebench validate` reports the same)",
      problems.error_count()));
}

}  // namespace

StatusOr<recipe::Plan> LoadPlan(PlanFlags p, const char* command,
                                const run::RunSettings* run_settings) {
  recipe::MatrixFilters& f = p.filters;
  if (p.single || p.multi) {
    f.single_node = p.single;
    f.multi_node = p.multi;
  }
  if (p.no_evals)
    f.evals = recipe::EvalSelection::kNone;
  else if (p.evals_only && p.all_evals)
    f.evals = recipe::EvalSelection::kOnlyAll;
  else if (p.all_evals)
    f.evals = recipe::EvalSelection::kAll;
  else if (p.evals_only)
    f.evals = recipe::EvalSelection::kOnly;

  recipe::Diagnostics diagnostics;
  recipe::RecipeSet set = recipe::LoadRecipes(p.paths, &diagnostics, p.runners);
  if (!diagnostics.empty()) std::fputs(diagnostics.ToString().c_str(), stderr);
  if (!diagnostics.ok()) {
    return Status::InvalidArgument(std::to_string(diagnostics.error_count()) +
                                   " problem(s) in the recipes; nothing was " +
                                   (std::string(command) == "matrix" ? "expanded" : "launched"));
  }
  SB_ASSIGN_OR_RETURN(recipe::Plan plan, recipe::ExpandRecipes(set, f));
  // Only a run replays: `matrix` lists the rows as InferenceX expands them.
  if (run_settings != nullptr) {
    SB_RETURN_IF_ERROR(recipe::BindAgenticTraces(&plan, p.agentic));
    SB_RETURN_IF_ERROR(BindConversationDatasets(&plan, p.speed_bench_dir));
  } else if (!p.agentic.trace_path.empty() || p.agentic.duration_s != 0 ||
             !p.agentic.trace_format.empty() || !p.speed_bench_dir.empty()) {
    return Status::InvalidArgument(
        std::string("--trace, --trace-format, --duration and --speed-bench-dir apply to run and "
                    "nightly, not ") +
        command);
  }
  if (!p.inferencex_root.empty()) {
    capture::CaptureSettings settings;
    settings.inferencex_root = p.inferencex_root;
    SB_ASSIGN_OR_RETURN(capture::CaptureReport report,
                        capture::CaptureInferenceXLaunches(&plan, set.runners, settings));
    std::fputs(capture::FormatCaptureReport(report, false).c_str(), stderr);
    if (!report.all_captured()) {
      return Status::InvalidArgument(
          std::to_string(report.failed_points) +
          " selected InferenceX point(s) cannot be captured (listed above); select keys whose "
          "scripts capture (--config-keys) or see `servebench import inferencex --notes`");
    }
  }
  if (p.engine == "sim" || p.sim_time_scale > 0) {
    run::RehearsalSettings rehearsal;
    rehearsal.time_scale = p.sim_time_scale;
    std::vector<recipe::Point>* points = &plan.points;
    if (p.engine != "sim") {
      // --sim-time-scale alone: only the points already on the simulator.
      for (const auto& point : plan.points) {
        if (point.serve.engine != "sim") {
          return Status::InvalidArgument("--sim-time-scale applies to simulated engines; recipe " +
                                         point.recipe + " runs engine " + point.serve.engine +
                                         " (add --engine sim to rehearse it)");
        }
      }
    }
    std::vector<std::string> notes;
    SB_RETURN_IF_ERROR(run::RehearseOnSim(points, rehearsal, &notes));
    for (const auto& n : notes) std::fprintf(stderr, "servebench %s: %s\n", command, n.c_str());
  }
  if (p.sessions.empty() && !p.nightly_only) {
    if (run_settings != nullptr) SB_RETURN_IF_ERROR(Preflight(set, plan, *run_settings));
    return plan;
  }
  std::vector<bool> matched(p.sessions.size(), false);
  auto keep = [&](const recipe::Point& point) {
    if (p.nightly_only && !point.nightly) return false;
    if (p.sessions.empty()) return true;
    for (size_t i = 0; i < p.sessions.size(); ++i) {
      if (point.session_id.rfind(p.sessions[i], 0) == 0) {
        matched[i] = true;
        return true;
      }
    }
    return false;
  };
  // Rows and points are parallel for single-node sweeps; keep them in step when so.
  bool parallel = plan.rows.size() == plan.points.size();
  recipe::Plan kept;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    if (!keep(plan.points[i])) continue;
    kept.points.push_back(plan.points[i]);
    if (i < plan.origins.size()) kept.origins.push_back(plan.origins[i]);
    if (parallel) kept.rows.push_back(plan.rows[i]);
  }
  for (size_t i = 0; i < p.sessions.size(); ++i) {
    if (!matched[i]) {
      return Status::InvalidArgument("--session " + p.sessions[i] +
                                     ": no serve session of the selected points has this id "
                                     "(`servebench matrix` lists them)");
    }
  }
  if (run_settings != nullptr) SB_RETURN_IF_ERROR(Preflight(set, kept, *run_settings));
  return kept;
}

}  // namespace servebench::cli
