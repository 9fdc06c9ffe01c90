#include "run/slurm.h"

#include <fmt/format.h>
#include <sys/wait.h>

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

std::string RenderSlurmScript(const std::vector<std::string>& session_ids,
                              const std::vector<std::string>& task_argv, const std::string& out_dir,
                              const std::string& work_dir, const SlurmSettings& s) {
  std::string script = "#!/bin/bash\n";
  script += "# Written by servebench run --executor slurm: one array task per serve session.\n";
  script += fmt::format("#SBATCH --job-name={}\n", s.job_name);
  script += fmt::format("#SBATCH --array=0-{}\n", session_ids.size() - 1);
  script += fmt::format("#SBATCH --output={}/slurm/task-%a.log\n", out_dir);
  script += fmt::format("#SBATCH --chdir={}\n", work_dir);
  script += "#SBATCH --ntasks=1\n";
  if (!s.partition.empty()) script += fmt::format("#SBATCH --partition={}\n", s.partition);
  if (!s.account.empty()) script += fmt::format("#SBATCH --account={}\n", s.account);
  if (!s.time_limit.empty()) script += fmt::format("#SBATCH --time={}\n", s.time_limit);
  for (const std::string& a : s.sbatch_args) script += fmt::format("#SBATCH {}\n", a);
  script += "set -u\n";
  script += "sessions=(";
  for (const std::string& id : session_ids) script += " " + id;
  script += " )\n";
  script += "session=${sessions[$SLURM_ARRAY_TASK_ID]}\n";
  script += fmt::format("dir={}/tasks/$SLURM_ARRAY_TASK_ID\n", ShellQuote(out_dir));
  script += "mkdir -p \"$dir\"\n";
  script += "echo \"servebench: task $SLURM_ARRAY_TASK_ID, session $session, on $(hostname)\"\n";
  // Records stay files here; the submitting servebench ingests them all when the
  // array is done (or `servebench ingest <out>/tasks` later). Slurm's SIGTERM
  // (scancel, the time limit) reaches every process of the task: servebench run
  // handles it (it records the point in flight); the shell ignores it, so it outlives
  // servebench to write the exit code. (An ignored signal stays ignored in children
  // only until they install a handler, as servebench run does.)
  script += "trap '' TERM INT\n";
  std::string command;
  for (const std::string& a : task_argv) command += ShellQuote(a) + " ";
  script += command + "--session \"$session\" --out \"$dir\" --db ''\n";
  script += "rc=$?\n";
  script += "echo $rc > \"$dir/exit_code\"\n";
  script += "exit $rc\n";
  return script;
}

StatusOr<SlurmJob> SubmitSlurmArray(const std::vector<std::string>& session_ids,
                                    const std::vector<std::string>& task_argv,
                                    const std::string& out_dir, const SlurmSettings& settings) {
  if (session_ids.empty()) return Status::InvalidArgument("no serve sessions to submit");
  std::error_code ec;
  fs::path out = fs::absolute(out_dir, ec);
  fs::create_directories(out / "slurm", ec);
  if (ec)
    return Status::Unavailable(
        fmt::format("{}/slurm: cannot create: {}", out.string(), ec.message()));
  SlurmJob job;
  job.script_path = (out / "slurm" / "job.sbatch").string();
  std::string script = RenderSlurmScript(session_ids, task_argv, out.string(),
                                         fs::current_path().string(), settings);
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
    t.index = i;
    t.session_id = session_ids[i];
    t.dir = (out / "tasks" / std::to_string(i)).string();
    t.log = (out / "slurm" / fmt::format("task-{}.log", i)).string();
    job.tasks.push_back(std::move(t));
  }
  return job;
}

Status WaitForSlurmJob(SlurmJob* job, const SlurmSettings& settings,
                       const std::atomic<bool>* cancel, std::ostream& progress) {
  std::string last_counts;
  int squeue_failures = 0;
  while (true) {
    if (cancel != nullptr && cancel->load() && !job->cancelled) {
      job->cancelled = true;
      CommandResult c = RunCommandLine("scancel " + job->job_id);
      progress << "servebench: cancelling Slurm job " << job->job_id
               << (c.exit_code == 0 ? "" : " (scancel: " + Trimmed(c.output) + ")") << "\n";
    }
    // One line per task still known to the queue: "<state>".
    CommandResult q = RunCommandLine("squeue -h -j " + job->job_id + " -o %T");
    if (q.exit_code != 0) {
      // A job that has just left the queue can make squeue fail ("Invalid job id");
      // anything else for long means the controller is gone.
      if (q.output.find("Invalid job id") != std::string::npos) break;
      if (++squeue_failures >= 30) {
        return Status::Unavailable(
            fmt::format("squeue keeps failing for job {}: {}", job->job_id, Trimmed(q.output)));
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
        progress << "servebench: Slurm job " << job->job_id << ":" << counts << "\n";
        last_counts = counts;
      }
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(settings.poll_interval_s));
  }
  for (SlurmTask& t : job->tasks) {
    std::ifstream in(t.dir + "/exit_code");
    int code = -1;
    if (in >> code) t.exit_code = code;
  }
  return Status::Ok();
}

}  // namespace servebench::run
