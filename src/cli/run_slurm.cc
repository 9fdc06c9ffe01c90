// `servebench run --executor slurm`: the sweep as one Slurm job array (run/slurm.h),
// then every task's records ingested into the store and the outcome of each task.
#include <fmt/format.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>

#include "cli/run_command.h"
#include "common/exit_codes.h"
#include "recipe/topology.h"
#include "run/slurm.h"
#include "store/record_files.h"
#include "store/store.h"

namespace servebench::cli {
namespace {

std::atomic<bool> g_slurm_cancel{false};
extern "C" void OnSlurmSignal(int) { g_slurm_cancel.store(true); }

// Flags the submitter owns: each task gets its own --session, --out and --db.
bool TakesValue(const std::string& flag) {
  static const std::set<std::string> kWithValue = {
      "--executor", "--slurm-partition", "--slurm-account", "--slurm-time", "--slurm-arg", "--out",
      "--db",       "--session",         "--run-id",        "--build-date"};
  return kWithValue.count(flag) > 0;
}
bool OwnedBySubmitter(const std::string& flag) {
  return TakesValue(flag) || flag == "--no-wait" || flag == "--dry-run" || flag == "--slurm-steps";
}

}  // namespace

std::vector<std::string> SlurmTaskArgv(const std::string& self, int argc, char** argv,
                                       const std::string& run_id, const std::string& build_date) {
  std::vector<std::string> out = {self, "run"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string flag = a.substr(0, a.find('='));
    if (OwnedBySubmitter(flag)) {
      if (TakesValue(flag) && a.find('=') == std::string::npos) ++i;  // "--out DIR": skip DIR too
      continue;
    }
    out.push_back(std::move(a));
  }
  // One run id and one night for the whole sweep, as when it runs on one machine.
  out.insert(out.end(), {"--run-id", run_id, "--build-date", build_date});
  return out;
}

int ExecuteOnSlurm(const recipe::Plan& plan, const run::RunSettings& settings,
                   const run::SlurmSettings& slurm, bool wait, bool dry_run,
                   const std::vector<std::string>& task_argv) {
  std::vector<recipe::ServeSession> sessions = recipe::GroupSessions(plan.points);
  if (sessions.empty()) {
    std::fprintf(stderr, "servebench run: the filters selected no points; nothing to submit\n");
    return kExitInvalidInput;
  }
  // One array per node count: a session of several processes allocates its topology's
  // nodes, and the tasks of an array share one resource request (disagg.md §5).
  std::vector<std::pair<std::string, int>> by_nodes;
  for (const auto& s : sessions) {
    int nodes = 1;
    if (recipe::HasTopology(s.points.front().serve)) {
      auto t = recipe::SessionTopology(s.points.front().serve);
      if (t.ok()) nodes = t->nodes;  // run's checks refused bad topologies before
    }
    by_nodes.emplace_back(s.session_id, nodes);
  }
  std::vector<run::SlurmArray> arrays = run::GroupByNodes(by_nodes);
  if (dry_run) {
    std::error_code ec;
    std::string out = std::filesystem::absolute(settings.out_dir, ec).string();
    for (const auto& array : arrays) {
      std::fputs(run::RenderSlurmScript(array, task_argv, out,
                                        std::filesystem::current_path().string(), slurm)
                     .c_str(),
                 stdout);
    }
    std::printf(
        "# %zu array task(s) in %zu job array(s) for %zu point(s); nothing was "
        "submitted (--dry-run)\n",
        sessions.size(), arrays.size(), plan.points.size());
    return kExitOk;
  }
  std::vector<run::SlurmJob> jobs;
  for (const auto& array : arrays) {
    StatusOr<run::SlurmJob> job = run::SubmitSlurmArray(array, task_argv, settings.out_dir, slurm);
    if (!job.ok()) {
      std::fprintf(stderr, "servebench run: %s\n", job.status().message().c_str());
      if (!jobs.empty()) {
        // Nothing half-submitted is left running behind the error.
        std::string ids;
        for (const auto& j : jobs) ids += " " + j.job_id;
        std::string cancel = "scancel" + ids;
        (void)!std::system(cancel.c_str());
      }
      return kExitRunFailed;
    }
    std::fprintf(stderr,
                 "servebench: submitted Slurm job %s: %zu array task(s) of %d node(s), one per "
                 "serve session (%s)\n",
                 job->job_id.c_str(), job->tasks.size(), job->nodes, job->script_path.c_str());
    jobs.push_back(std::move(*job));
  }
  std::string tasks_dir = settings.out_dir + "/tasks";
  if (!wait) {
    std::string ids;
    for (const auto& j : jobs) ids += (ids.empty() ? "" : " ") + j.job_id;
    std::printf("Slurm job(s) %s submitted. When done: servebench ingest %s%s\n", ids.c_str(),
                tasks_dir.c_str(),
                settings.db_url.empty() ? "" : (" --db " + settings.db_url).c_str());
    return kExitOk;
  }
  struct sigaction action {};
  action.sa_handler = OnSlurmSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
  Status waited = run::WaitForSlurmJobs(&jobs, slurm, &g_slurm_cancel, std::cerr);
  if (!waited.ok()) std::fprintf(stderr, "servebench run: %s\n", waited.message().c_str());

  // Whatever the tasks wrote is ingested, whatever else happened.
  int ingested = 0, refused = 0;
  if (!settings.db_url.empty()) {
    auto db = store::Open(settings.db_url);
    auto files = store::FindRecordFiles(tasks_dir);
    if (!db.ok()) {
      std::fprintf(stderr, "servebench run: cannot open the store: %s\n",
                   db.status().message().c_str());
      return kExitRunFailed;
    }
    if (files.ok()) {
      auto outcomes = store::IngestRecordFiles(**db, *files);
      if (!outcomes.ok()) {
        std::fprintf(stderr, "servebench run: %s\n", outcomes.status().message().c_str());
        return kExitRunFailed;
      }
      for (const auto& o : *outcomes) {
        if (o.outcome) ++ingested;
        if (!o.error.ok()) {
          ++refused;
          std::fprintf(stderr, "servebench run: %s\n", o.error.message().c_str());
        }
      }
    }
  }
  int worst = kExitOk;
  bool cancelled = false;
  size_t task_count = 0;
  std::string job_ids;
  for (const auto& job : jobs) {
    cancelled = cancelled || job.cancelled;
    task_count += job.tasks.size();
    job_ids += (job_ids.empty() ? "" : ",") + job.job_id;
    for (const run::SlurmTask& t : job.tasks) {
      std::string what = t.exit_code < 0 ? "no result (killed by Slurm? see its log)"
                                         : fmt::format("exit {}", t.exit_code);
      std::printf("task %zu  session %s  %s  %s/report.md  log %s\n", t.index,
                  t.session_id.substr(0, 12).c_str(), what.c_str(), t.dir.c_str(), t.log.c_str());
      int code = t.exit_code < 0 ? kExitRunFailed : t.exit_code;
      if (ExitSeverity(code) > ExitSeverity(worst)) worst = code;
    }
  }
  std::printf(
      "\nSlurm job %s: %zu task(s); records: %s/*/records/  store: %s (%d record(s) ingested%s)\n",
      job_ids.c_str(), task_count, tasks_dir.c_str(),
      settings.db_url.empty() ? "(none)" : settings.db_url.c_str(), ingested,
      refused > 0 ? fmt::format(", {} refused", refused).c_str() : "");
  if (cancelled) return kExitInterrupted;
  if ((!waited.ok() || refused > 0) && ExitSeverity(worst) < ExitSeverity(kExitRunFailed))
    worst = kExitRunFailed;
  return worst;
}

}  // namespace servebench::cli
