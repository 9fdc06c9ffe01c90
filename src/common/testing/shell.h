// Test-only: run a command (the real servebench binary, usually) to completion and
// capture its exit status and output. RunProcess takes an argv, a deadline and keeps
// stdout and stderr apart; RunShell and RunServebench take a /bin/sh command line and
// interleave them. Header-only so any test target can use it without linking anything.
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

namespace servebench::testing {

struct ProcessResult {
  int exit_code = -1;      // the exit status; -signal when a signal ended it; -1 when it never ran
  std::string out;         // stdout
  std::string err;         // stderr
  bool timed_out = false;  // killed (SIGKILL) at the deadline
};

// Runs argv[0] (a path) with `argv` and waits up to `timeout_s` for it to finish.
inline ProcessResult RunProcess(const std::vector<std::string>& argv, double timeout_s) {
  ProcessResult r;
  std::vector<std::string> args = argv;  // built before fork: no allocation after it
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  int out_pipe[2], err_pipe[2];
  if (c_args.size() < 2 || pipe(out_pipe) != 0) return r;
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return r;
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(out_pipe[0]);
    close(err_pipe[0]);
    execv(c_args[0], c_args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  while ((fds[0].fd >= 0 || fds[1].fd >= 0) && pid > 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, 100) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        continue;
      }
      sinks[i]->append(buf, static_cast<size_t>(n));
    }
  }
  for (pollfd& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid) {
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }
  return r;
}

struct ShellResult {
  int exit_code = -1;  // -1 when the command could not run or was killed by a signal
  std::string output;  // stdout and stderr, interleaved as written
};

// Runs `command_line` with /bin/sh and waits for it (at most ten minutes).
inline ShellResult RunShell(const std::string& command_line) {
  ProcessResult p = RunProcess({"/bin/sh", "-c", command_line + " 2>&1"}, 600);
  ShellResult result;
  result.exit_code = p.exit_code < 0 ? -1 : p.exit_code;
  result.output = std::move(p.out);
  return result;
}

#ifdef SERVEBENCH_BIN
// Runs the servebench binary under test with `args`; `env` ("NAME=value ...") first.
inline ShellResult RunServebench(const std::string& args, const std::string& env = "") {
  return RunShell(env + (env.empty() ? "" : " ") + SERVEBENCH_BIN + " " + args);
}
#endif

}  // namespace servebench::testing
