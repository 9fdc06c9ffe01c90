// servebench run PATH... [filters]: the main job. Expands the recipes, launches each
// serve session's engine, runs every point's load (and evals), stores one Record per
// point, and prints the per-session tables and the Pareto frontier.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/flag_checks.h"
#include "cli/plan_flags.h"
#include "cli/power_flags.h"
#include "cli/run_command.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "common/time_format.h"
#include "engine/engine.h"
#include "run/executor.h"
#include "run/real_backends.h"
#include "run/record.h"
#include "run/record_sink.h"
#include "run/report.h"
#include "store/store.h"
#include "telemetry/telemetry.h"

namespace servebench::cli {
namespace {

std::atomic<bool> g_cancel{false};
std::atomic<int> g_signals{0};

// First Ctrl-C: stop after recording the point in flight (partial result kept).
// Second: kill every engine now and exit.
void OnSignal(int sig) {
  g_cancel.store(true);
  if (g_signals.fetch_add(1) >= 1) {
    engine::KillAllEnginesFromSignalHandler();
    ::_exit(kExitInterrupted);
  }
  const char msg[] = "\nservebench: stopping after the point in flight (again to abort)\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  (void)sig;
}

std::string SelfPath() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "servebench";
}

}  // namespace

std::string DefaultRunId() {
  char host[128] = {};
  ::gethostname(host, sizeof host - 1);
  return FormatNow("%Y%m%dT%H%M%SZ") + "-" + host + "-" + std::to_string(::getpid());
}

// Shared with `servebench nightly`: the run flags beyond the plan's.
void AddRunFlags(CLI::App& app, run::RunSettings* s) {
  app.add_option("--out", s->out_dir, "results folder: records/, logs/, requests/, report.md")
      ->capture_default_str();
  AddDbFlag(&app, &s->db_url, "SQLite file or postgresql:// URL; '' for record files only");
  app.add_flag("--resume", s->resume, "skip points already recorded ok in the store");
  app.add_flag("--continue-on-canary-failure", s->continue_after_canary_failure,
               "go on with the other sessions when the canary point fails");
  app.add_flag("--echo-engine-log", s->echo_engine_log, "copy engine output to stderr");
  app.add_option("--readiness-timeout", s->readiness_timeout_s,
                 "seconds an engine may take to become ready (default: recipe, else engine's)");
  app.add_option("--request-timeout", s->request_timeout_s, "per-request deadline, seconds")
      ->capture_default_str();
  app.add_flag("--reset-prefix-cache", s->reset_prefix_cache,
               "POST /reset_prefix_cache before every point's measured phase (bench's flag)");
  app.add_flag("--profile", s->profile,
               "start engines with their profiler dir (<out>/profiles/<session>/) and profile "
               "every point's measured phase (bench's flag); the dir is the record's "
               "artifacts.profile");
  app.add_option("--issue-delay-limit-ms", s->client_issue_delay_limit_ms,
                 "P99 client issue delay above which a point is invalid (client_saturated)")
      ->capture_default_str();
  app.add_option("--server-lag-limit-ms", s->server_lag_limit_ms,
                 "simulated engines: P99 lateness against their own schedule (simulated ms) above "
                 "which a point is invalid (server_lagged)")
      ->capture_default_str();
  app.add_option("--prompts-per-concurrency", s->default_prompts_per_concurrency,
                 "prompts per point when the recipe sets none: concurrency × this (min 20)")
      ->capture_default_str();
  app.add_option("--container", s->container,
                 "run engines with an image in a container: docker, podman, enroot or srun");
  app.add_option(
      "--container-arg", s->container_args,
      "extra container argument, repeatable (e.g. --container-arg=--gpus --container-arg=all)");
  app.add_option("--container-mount", s->container_mounts, "host:container bind mount, repeatable");
  AddBuildFlags(&app, &s->build);
  app.add_option("--run-id", s->run_id, "identifier of this run (default: time-host-pid)");
  app.add_option("--eval-data", s->eval_data_path, "gsm8k test JSONL for points with evals");
  app.add_option("--eval-fewshot", s->eval_fewshot_path, "gsm8k train JSONL (n-shot examples)");
  app.add_option("--eval-thresholds", s->eval_thresholds_path, "eval floors (thresholds.yaml)");
  app.add_option("--servebench-bin", s->servebench_binary,
                 "the servebench binary that runs `sim` engines (default: this one)");
  // GPU power: idle power once per serve session (10 s: reference power.md §3.1).
  auto power = std::make_shared<PowerFlags>();
  AddPowerFlags(app, power.get(), /*idle_default_s=*/10);
  app.parse_complete_callback([power, s] {
    StatusOr<telemetry::TelemetrySettings> t = ResolvePowerFlags(*power);
    if (!t.ok()) throw CLI::ValidationError(t.status().message());
    s->telemetry = *t;
    s->idle_power_s = power->idle_power_s;  // checked with the rest by run::Validate
  });
}

Status CheckRunFlags(const run::RunSettings& settings) {
  SB_RETURN_IF_ERROR(run::Validate(settings));
  SB_RETURN_IF_ERROR(CheckOutputFolder("--out", settings.out_dir));
  return CheckStoreToWrite(settings.db_url, settings.out_dir);
}

// Runs `plan` with `settings`; prints the report. Returns the exit code.
int ExecutePlan(const recipe::Plan& plan, run::RunSettings settings, bool dry_run) {
  if (settings.run_id.empty()) settings.run_id = DefaultRunId();
  if (settings.build.date.empty()) settings.build.date = FormatNow("%Y-%m-%d");
  if (settings.servebench_binary.empty()) settings.servebench_binary = SelfPath();
  std::vector<recipe::ServeSession> sessions = recipe::GroupSessions(plan.points);
  if (sessions.empty()) {
    std::fprintf(stderr, "servebench run: the filters selected no points; nothing to run\n");
    return kExitInvalidInput;
  }
  run::SupervisedEngineBackend engine(settings);
  run::NativeLoadBackend load(settings);
  run::NativeEvalBackend eval(settings);
  if (dry_run) {
    run::Executor executor(settings, &engine, &load, &eval, nullptr, &std::cerr);
    Status shown = executor.DryRun(sessions, std::cout);
    if (!shown.ok()) {
      std::fprintf(stderr, "servebench run: %s\n", shown.message().c_str());
      return kExitInvalidInput;
    }
    std::printf("# %zu serve session(s), %zu point(s); nothing was started (--dry-run)\n",
                sessions.size(), plan.points.size());
    return kExitOk;
  }

  // A named GPU source this machine lacks would fail every point after its engine
  // started; refuse it first (on Slurm this runs in the task, where the GPUs are).
  if (Status power = telemetry::CheckLocalSourceOpens(settings.telemetry); !power.ok()) {
    std::fprintf(stderr, "servebench run: %s\n", power.message().c_str());
    return kExitInvalidInput;
  }

  std::unique_ptr<store::Store> db;
  if (std::string file = store::SqlitePathOf(settings.db_url); !file.empty()) {
    // A store inside the output folder (as `make demo` uses) must not need the folder
    // to exist beforehand; anywhere else CheckRunFlags required it to exist.
    std::error_code ec;
    std::filesystem::path parent = std::filesystem::path(file).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  if (!settings.db_url.empty()) {
    auto opened = store::Open(settings.db_url);
    if (!opened.ok()) {
      std::fprintf(stderr, "servebench run: cannot open the store: %s\n",
                   opened.status().message().c_str());
      return kExitRunFailed;
    }
    db = std::move(*opened);
  }
  run::StoreRecordSink sink(settings.out_dir, std::move(db));

  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGHUP, &action, nullptr);

  run::Executor executor(settings, &engine, &load, &eval, &sink, &std::cerr);
  run::SweepReport report = executor.Run(sessions, &g_cancel);
  engine::StopAllEngines();

  std::string terminal = run::FormatSweepReport(report, run::ReportStyle::kTerminal);
  std::fputs(terminal.c_str(), stdout);
  std::string report_path = settings.out_dir + "/report.md";
  Status written =
      WriteFileAtomically(report_path, run::FormatSweepReport(report, run::ReportStyle::kMarkdown));
  if (!written.ok()) std::fprintf(stderr, "servebench run: %s\n", written.message().c_str());
  std::printf("\nrecords: %s/records/  report: %s  store: %s (%d record(s) ingested)\n",
              settings.out_dir.c_str(), report_path.c_str(),
              settings.db_url.empty() ? "(none)" : settings.db_url.c_str(), sink.ingested());
  for (const auto& e : report.sink_errors) std::fprintf(stderr, "servebench run: %s\n", e.c_str());

  if (report.interrupted) return kExitInterrupted;
  // A point that failed only its accuracy gate measured fine: that is a failed gate
  // (5), not a failed run (3).
  int failed = 0, gates = 0;
  for (const run::PointReport& p : report.points) {
    if (p.resumed || p.status != record::RecordStatus::kFailed) continue;
    ++failed;
    if (p.failure.failure_class == failure_class::kEvalBelowThreshold) ++gates;
  }
  if (report.canary_failed || failed > gates || !report.sink_errors.empty()) return kExitRunFailed;
  if (gates > 0) return kExitGateFailed;
  if (report.Count(record::RecordStatus::kInvalid) > 0) return kExitRunInvalid;
  return kExitOk;
}

namespace {

int RunRun(int argc, char** argv) {
  CLI::App app{
      "Run recipes' sweeps end to end: launch engines, benchmark, evaluate, store.\n"
      "Exit status: 0 every point ok (or blocked); 1 bad input (recipes, filters that select "
      "nothing); 2 a point invalid; 3 a point or the canary failed, or a record not stored; "
      "5 points failed only their accuracy gate; 130 interrupted; 64 usage.",
      argv[0]};
  PlanFlags plan_flags;
  run::RunSettings settings;
  bool dry_run = false, no_wait = false;
  std::string executor = "local";
  run::SlurmSettings slurm;
  AddPlanFlags(app, &plan_flags);
  AddRunFlags(app, &settings);
  app.add_flag("--dry-run", dry_run,
               "print every serve session's command (slurm: the job script); launch nothing");
  app.add_option("--executor", executor,
                 "local (this machine) or slurm (one job-array task per serve session)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str();
  app.add_option("--slurm-partition", slurm.partition, "slurm: sbatch --partition");
  app.add_option("--slurm-account", slurm.account, "slurm: sbatch --account");
  app.add_option("--slurm-time", slurm.time_limit, "slurm: time limit per task (sbatch --time)");
  app.add_option("--slurm-arg", slurm.sbatch_args,
                 "slurm: another sbatch option, repeatable (--slurm-arg=--gpus-per-task=8)");
  app.add_flag("--slurm-steps", settings.slurm_steps,
               "inside a Slurm allocation: run each process of a serve session as an srun step "
               "on its node(s) (what --executor slurm's job script passes)");
  app.add_flag("--no-wait", no_wait,
               "slurm: submit and return (then `servebench ingest <out>/tasks`)");
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (Status st = CheckRunFlags(settings); !st.ok()) {
    return Fail("servebench run", ExitCodeFor(st), st.message());
  }
  auto plan = LoadPlan(plan_flags, "run", &settings);
  if (!plan.ok()) {
    std::fprintf(stderr, "servebench run: %s\n", plan.status().message().c_str());
    return kExitInvalidInput;
  }
  if (executor == "slurm") {
    if (settings.run_id.empty()) settings.run_id = DefaultRunId();
    if (settings.build.date.empty()) settings.build.date = FormatNow("%Y-%m-%d");
    return ExecuteOnSlurm(
        *plan, settings, slurm, !no_wait, dry_run,
        SlurmTaskArgv(SelfPath(), argc, argv, settings.run_id, settings.build.date));
  }
  return ExecutePlan(*plan, settings, dry_run);
}

const CommandRegistration kRegister{
    {"run", "the main job: launch engines, benchmark, evaluate, store", RunRun}};

}  // namespace
}  // namespace servebench::cli
