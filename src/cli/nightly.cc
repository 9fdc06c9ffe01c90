// servebench nightly PATH...: every point marked nightly (native `nightly: true` or a
// workload's `nightly: true`) through `servebench run`, with the build under test
// on every record, so `servebench regress` can judge tonight against history; with
// --regress it judges the night itself and exits with the verdict's code.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/judge_night.h"
#include "cli/plan_flags.h"
#include "cli/run_command.h"
#include "common/exit_codes.h"
#include "common/time_format.h"

namespace servebench::cli {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

int RunNightly(int argc, char** argv) {
  CLI::App app{
      "Run every nightly workload against tonight's build and store the results.\n"
      "Exit status: the run's (0 ok; 2 a point invalid; 3 a point or the canary failed; 5 "
      "only accuracy gates failed; 130 interrupted; 1 bad input; 64 usage). With --regress, "
      "tonight is judged against the store afterwards and a confirmed regression exits 4 "
      "(an accuracy gate alone 5); the worse of the run's and the verdict's code is "
      "returned: 130, then 1/64, 4, 3, 5, 2, 0.",
      argv[0]};
  PlanFlags plan_flags;
  run::RunSettings settings;
  bool dry_run = false;
  std::string image_override;
  AddPlanFlags(app, &plan_flags);
  AddRunFlags(app, &settings);
  app.add_option("--image", image_override,
                 "engine image for every point (default: $VLLM_IMAGE, else the recipe's)");
  std::string sim_build_slowdown;
  app.add_option("--sim-build-slowdown", sim_build_slowdown,
                 "sim points: the build under test is this much slower (sim --build-slowdown)");
  app.add_flag("--dry-run", dry_run, "print every serve session's command; launch nothing");
  bool regress = false;
  std::string regress_output;
  app.add_flag("--regress", regress,
               "after the run, judge tonight (--build-date) against --db as `servebench "
               "regress` does, print the verdict and exit 4 on a confirmed regression");
  app.add_option("--regress-output", regress_output,
                 "with --regress: write the Markdown verdict here instead of stdout");
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  // The seed pipeline passes the build as environment (nightly-workloads.md §2).
  if (image_override.empty()) image_override = Env("VLLM_IMAGE");
  if (settings.build.image.empty()) settings.build.image = image_override;
  if (settings.build.commit.empty()) settings.build.commit = Env("VLLM_COMMIT");
  if (settings.build.commit.empty()) settings.build.commit = Env("BUILDKITE_COMMIT");
  if (settings.build.image.empty() && !sim_build_slowdown.empty()) {
    settings.build.image = "servebench-sim:build-slowdown-" + sim_build_slowdown;
  }

  if (Status st = CheckRunFlags(settings); !st.ok()) {
    return Fail("servebench nightly", ExitCodeFor(st), st.message());
  }
  if (!sim_build_slowdown.empty()) {
    char* end = nullptr;
    double v = std::strtod(sim_build_slowdown.c_str(), &end);
    if (*end != '\0' || !(v > 0) || !std::isfinite(v)) {
      return Fail("servebench nightly", kExitInvalidInput,
                  "--sim-build-slowdown '" + sim_build_slowdown +
                      "': a number > 0 (1.2 = the build is 20% slower)");
    }
  }
  plan_flags.nightly_only = true;  // the preflight checks what tonight runs
  auto plan = LoadPlan(plan_flags, "nightly", &settings);
  if (!plan.ok()) {
    std::fprintf(stderr, "servebench nightly: %s\n", plan.status().message().c_str());
    return kExitInvalidInput;
  }
  recipe::Plan nightly;
  for (auto& point : plan->points) {
    if (!point.nightly) continue;
    if (!image_override.empty() && point.serve.engine != "sim") {
      point.serve.image = image_override;
      recipe::AssignIds(&point);
    }
    if (!sim_build_slowdown.empty() && point.serve.engine == "sim") {
      point.serve.sim_options["build-slowdown"] = sim_build_slowdown;
      recipe::AssignIds(&point);
    }
    nightly.points.push_back(std::move(point));
  }
  if (nightly.points.empty()) {
    std::fprintf(stderr,
                 "servebench nightly: no point is marked nightly in %zu recipe file(s); set "
                 "`nightly: true` on the recipes to run\n",
                 plan_flags.paths.size());
    return kExitInvalidInput;
  }
  std::fprintf(stderr, "servebench nightly: build image=%s commit=%s date=%s, %zu point(s)\n",
               settings.build.image.empty() ? "(recipe)" : settings.build.image.c_str(),
               settings.build.commit.empty() ? "(none)" : settings.build.commit.c_str(),
               settings.build.date.empty() ? "(today)" : settings.build.date.c_str(),
               nightly.points.size());
  if (regress && settings.db_url.empty()) {
    std::fprintf(stderr, "servebench nightly: --regress judges the store: give --db\n");
    return kExitUsage;
  }
  if (regress && settings.build.date.empty()) settings.build.date = FormatNow("%Y-%m-%d");
  int rc = ExecutePlan(nightly, settings, dry_run);
  if (dry_run) return rc;
  if (!regress) {
    std::printf("judge tonight against history: servebench regress --db %s\n",
                settings.db_url.c_str());
    return rc;
  }
  if (rc == kExitInterrupted || rc == kExitInvalidInput) return rc;
  JudgeRequest q;
  q.command = "nightly";
  q.db = settings.db_url;
  q.date = settings.build.date;
  q.output = regress_output;
  int verdict = JudgeNight(q);
  // The worse of the two (common/exit_codes.h ExitSeverity).
  return ExitSeverity(verdict) > ExitSeverity(rc) ? verdict : rc;
}

const CommandRegistration kRegister{
    {"nightly", "run the nightly workloads against tonight's build and store the results",
     RunNightly}};

}  // namespace
}  // namespace servebench::cli
