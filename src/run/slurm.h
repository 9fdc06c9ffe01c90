// The Slurm executor (design.md "Scale-out"): a sweep becomes Slurm job arrays, one
// array task per serve session. Each task runs `servebench run` on its own session
// (`--session`) into its own folder, `<out>/tasks/<index>/`, writing record files
// only; the submitting process waits for the arrays, then ingests every task's
// records into the store, as `servebench ingest <out>/tasks` would.
//
// A serve session of several processes needs an allocation of its topology's node
// count; the tasks of one array share one resource request (disagg.md §5), so the
// sessions are grouped into one array per node count. The task runs on the
// allocation's first node and starts each process as an srun step on its node(s)
// (`--slurm-steps`, slurm_steps.h).
//
//   <out>/slurm/job.sbatch     the job script of the one-node sessions (kept: what
//                              ran, and a way to rerun it); job-nodes<N>.sbatch per N
//   <out>/slurm/task-<i>.log   each task's output (Slurm's --output); nodes<N>-task-<i>.log
//   <out>/tasks/<i>/           each task's records/, logs/, report.md, exit_code
//
// Talks to Slurm through its commands (sbatch, squeue, scancel) found on PATH, with
// the environment the caller has (SLURM_CONF included). Not thread-safe.
#pragma once

#include <atomic>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::run {

struct SlurmSettings {
  std::string partition;                 // --partition; empty = the cluster's default
  std::string account;                   // --account
  std::string time_limit;                // --time, e.g. 04:00:00
  std::vector<std::string> sbatch_args;  // more #SBATCH options, verbatim ("--gpus-per-task=8")
  std::string job_name = "servebench";
  double poll_interval_s = 2;
};

struct SlurmTask {
  size_t index = 0;
  std::string session_id;
  std::string dir;     // <out>/tasks/<index>
  std::string log;     // <out>/slurm/task-<index>.log
  int exit_code = -1;  // servebench run's exit code; -1: the task left no result (killed?)
};

// One job array: sessions that need the same number of nodes.
struct SlurmArray {
  std::vector<std::string> session_ids;
  int nodes = 1;          // nodes each task allocates
  size_t first_task = 0;  // index of its first task among all arrays (tasks/<index>)
};

struct SlurmJob {
  std::string job_id;
  std::string script_path;
  int nodes = 1;
  std::vector<SlurmTask> tasks;
  bool cancelled = false;  // scancel was sent (Ctrl-C while waiting)
};

// Groups sessions by their node count (1 for a single server), ascending; task
// indices count on across the arrays in that order.
std::vector<SlurmArray> GroupByNodes(const std::vector<std::pair<std::string, int>>& sessions);

// `value` quoted for a POSIX shell (single quotes; a ' inside becomes '\'').
std::string ShellQuote(const std::string& value);

// The job script of one array. `task_argv` is the whole `servebench run` command of
// one task without --session, --out, --db (the script adds them per task).
std::string RenderSlurmScript(const SlurmArray& array, const std::vector<std::string>& task_argv,
                              const std::string& out_dir, const std::string& work_dir,
                              const SlurmSettings& settings);

// Writes the script under `out_dir` and submits it (sbatch --parsable). Unavailable
// with sbatch's own words when Slurm refuses (no controller, bad partition, too few
// nodes, ...).
StatusOr<SlurmJob> SubmitSlurmArray(const SlurmArray& array,
                                    const std::vector<std::string>& task_argv,
                                    const std::string& out_dir, const SlurmSettings& settings);

// Waits until no task of any of the jobs is queued or running (squeue), then reads
// each task's exit code. When `cancel` becomes true, every job is cancelled
// (scancel: each `servebench run` gets SIGTERM and records the point in flight) and
// the wait goes on until the tasks are gone, so nothing they measured is lost.
// `progress` gets a line whenever the counts of pending/running tasks change.
Status WaitForSlurmJobs(std::vector<SlurmJob>* jobs, const SlurmSettings& settings,
                        const std::atomic<bool>* cancel, std::ostream& progress);

}  // namespace servebench::run
