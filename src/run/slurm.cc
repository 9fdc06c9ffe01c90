#include "run/slurm.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "common/atomic_file.h"

namespace servebench::run {
namespace {

namespace fs = std::filesystem;

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Runs a command line (arguments already quoted) and captures what it printed.
CommandResult RunCommandLine(const std::string& command_line) {
  CommandResult r;
  FILE* pipe = ::popen((command_line + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::string ShellQuote(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

std::vector<SlurmArray> GroupByNodes(const std::vector<std::pair<std::string, int>>& sessions) {
  std::map<int, SlurmArray> by_nodes;
  for (const auto& [id, nodes] : sessions) {
    SlurmArray& a = by_nodes[std::max(1, nodes)];
    a.nodes = std::max(1, nodes);
    a.session_ids.push_back(id);
  }
  std::vector<SlurmArray> out;
  size_t next = 0;
  for (auto& [nodes, array] : by_nodes) {
    array.first_task = next;
    next += array.session_ids.size();
    out.push_back(std::move(array));
  }
  return out;
}

namespace {

// One-node arrays keep the names a sweep of single servers always had.
std::string ScriptName(int nodes) {
  return nodes <= 1 ? "job.sbatch" : fmt::format("job-nodes{}.sbatch", nodes);
}
std::string LogName(int nodes, const std::string& index) {
  return nodes <= 1 ? fmt::format("task-{}.log", index)
                    : fmt::format("nodes{}-task-{}.log", nodes, index);
}

}  // namespace

std::string RenderSlurmScript(const SlurmArray& array, const std::vector<std::string>& task_argv,
                              const std::string& out_dir, const std::string& work_dir,
                              const SlurmSettings& s) {
  const std::vector<std::string>& session_ids = array.session_ids;
  std::string script = "#!/bin/bash\n";
  script += "# Written by servebench run --executor slurm: one array task per serve session";
  script += array.nodes > 1
                ? fmt::format(" of {} nodes; each process runs as an srun step on its node.\n",
                              array.nodes)
                : ".\n";
  script += fmt::format("#SBATCH --job-name={}\n", s.job_name);
  script += fmt::format("#SBATCH --array=0-{}\n", session_ids.size() - 1);
  script += fmt::format("#SBATCH --output={}/slurm/{}\n", out_dir, LogName(array.nodes, "%a"));
  script += fmt::format("#SBATCH --chdir={}\n", work_dir);
  if (array.nodes > 1) {
    script += fmt::format("#SBATCH --nodes={}\n", array.nodes);
    script += "#SBATCH --ntasks-per-node=1\n";
  } else {
    script += "#SBATCH --ntasks=1\n";
  }
  if (!s.partition.empty()) script += fmt::format("#SBATCH --partition={}\n", s.partition);
  if (!s.account.empty()) script += fmt::format("#SBATCH --account={}\n", s.account);
  if (!s.time_limit.empty()) script += fmt::format("#SBATCH --time={}\n", s.time_limit);
  for (const std::string& a : s.sbatch_args) script += fmt::format("#SBATCH {}\n", a);
  script += "set -u\n";
  script += "sessions=(";
  for (const std::string& id : session_ids) script += " " + id;
  script += " )\n";
  script += "session=${sessions[$SLURM_ARRAY_TASK_ID]}\n";
  script += array.first_task == 0
                ? "task=$SLURM_ARRAY_TASK_ID\n"
                : fmt::format("task=$(( {} + SLURM_ARRAY_TASK_ID ))\n", array.first_task);
  script += fmt::format("dir={}/tasks/$task\n", ShellQuote(out_dir));
  script += "mkdir -p \"$dir\"\n";
  script += "echo \"servebench: task $task, session $session, on $(hostname)";
  script += array.nodes > 1 ? " (nodes $SLURM_JOB_NODELIST)\"\n" : "\"\n";
  // Records stay files here; the submitting servebench ingests them all when the
  // array is done (or `servebench ingest <out>/tasks` later). Slurm's SIGTERM
  // (scancel, the time limit) reaches every process of the task: servebench run
  // handles it (it records the point in flight); the shell ignores it, so it outlives
  // servebench to write the exit code. (An ignored signal stays ignored in children
  // only until they install a handler, as servebench run does.)
  script += "trap '' TERM INT\n";
  std::string command;
  for (const std::string& a : task_argv) command += ShellQuote(a) + " ";
  if (array.nodes > 1) command += "--slurm-steps ";
  script += command + "--session \"$session\" --out \"$dir\" --db ''\n";
  script += "rc=$?\n";
  script += "echo $rc > \"$dir/exit_code\"\n";
  script += "exit $rc\n";
  return script;
}

StatusOr<SlurmJob> SubmitSlurmArray(const SlurmArray& array,
                                    const std::vector<std::string>& task_argv,
                                    const std::string& out_dir, const SlurmSettings& settings) {
  const std::vector<std::string>& session_ids = array.session_ids;
  if (session_ids.empty()) return Status::InvalidArgument("no serve sessions to submit");
  std::error_code ec;
  fs::path out = fs::absolute(out_dir, ec);
  fs::create_directories(out / "slurm", ec);
  if (ec)
    return Status::Unavailable(
        fmt::format("{}/slurm: cannot create: {}", out.string(), ec.message()));
  SlurmJob job;
  job.nodes = array.nodes;
  job.script_path = (out / "slurm" / ScriptName(array.nodes)).string();
  std::string script =
      RenderSlurmScript(array, task_argv, out.string(), fs::current_path().string(), settings);
  SB_RETURN_IF_ERROR(WriteFileAtomically(job.script_path, script));
  CommandResult sub = RunCommandLine("sbatch --parsable " + ShellQuote(job.script_path));
  std::string said = Trimmed(sub.output);
  if (sub.exit_code != 0) {
    return Status::Unavailable(fmt::format("sbatch {} failed (exit {}): {}", job.script_path,
                                           sub.exit_code,
                                           said.empty() ? "no output; is Slurm installed?" : said));
  }
  // --parsable prints "<jobid>[;<cluster>]" (after any warnings, one per line).
  std::string last = said.substr(said.rfind('\n') == std::string::npos ? 0 : said.rfind('\n') + 1);
  job.job_id = last.substr(0, last.find(';'));
  if (job.job_id.empty() || job.job_id.find_first_not_of("0123456789") != std::string::npos) {
    return Status::Unavailable(fmt::format("sbatch printed no job id: '{}'", said));
  }
  for (size_t i = 0; i < session_ids.size(); ++i) {
    SlurmTask t;
    t.index = array.first_task + i;
    t.session_id = session_ids[i];
    t.dir = (out / "tasks" / std::to_string(t.index)).string();
    t.log = (out / "slurm" / LogName(array.nodes, std::to_string(i))).string();
    job.tasks.push_back(std::move(t));
  }
  return job;
}

Status WaitForSlurmJobs(std::vector<SlurmJob>* jobs, const SlurmSettings& settings,
                        const std::atomic<bool>* cancel, std::ostream& progress) {
  std::string ids;
  for (const SlurmJob& j : *jobs) ids += (ids.empty() ? "" : ",") + j.job_id;
  std::string last_counts;
  int squeue_failures = 0;
  bool cancelled = false;
  while (true) {
    if (cancel != nullptr && cancel->load() && !cancelled) {
      cancelled = true;
      for (SlurmJob& j : *jobs) j.cancelled = true;
      std::string spaced = ids;
      std::replace(spaced.begin(), spaced.end(), ',', ' ');
      CommandResult c = RunCommandLine("scancel " + spaced);
      progress << "servebench: cancelling Slurm job(s) " << ids
               << (c.exit_code == 0 ? "" : " (scancel: " + Trimmed(c.output) + ")") << "\n";
    }
    // One line per task still known to the queue: "<state>".
    CommandResult q = RunCommandLine("squeue -h -j " + ids + " -o %T");
    if (q.exit_code != 0) {
      // A job that has just left the queue can make squeue fail ("Invalid job id");
      // anything else for long means the controller is gone.
      if (q.output.find("Invalid job id") != std::string::npos) break;
      if (++squeue_failures >= 30) {
        return Status::Unavailable(
            fmt::format("squeue keeps failing for job(s) {}: {}", ids, Trimmed(q.output)));
      }
    } else {
      squeue_failures = 0;
      std::map<std::string, int> states;
      std::istringstream lines(q.output);
      for (std::string line; std::getline(lines, line);) {
        line = Trimmed(line);
        if (!line.empty()) ++states[line];
      }
      if (states.empty()) break;
      std::string counts;
      for (const auto& [state, n] : states) counts += fmt::format(" {} {}", n, state);
      if (counts != last_counts) {
        progress << "servebench: Slurm job" << (jobs->size() > 1 ? "s " : " ") << ids << ":"
                 << counts << "\n";
        last_counts = counts;
      }
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(settings.poll_interval_s));
  }
  for (SlurmJob& j : *jobs) {
    for (SlurmTask& t : j.tasks) {
      std::ifstream in(t.dir + "/exit_code");
      int code = -1;
      if (in >> code) t.exit_code = code;
    }
  }
  return Status::Ok();
}

}  // namespace servebench::run
