// Test-only: run a command line (the real servebench binary, usually) and capture
// its exit status and its stdout and stderr together. Header-only so any test target
// can use it without linking anything.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace servebench::testing {

struct ShellResult {
  int exit_code = -1;  // -1 when the command could not run or was killed by a signal
  std::string output;  // stdout and stderr, interleaved as written
};

// Runs `command_line` with /bin/sh and waits for it.
inline ShellResult RunShell(const std::string& command_line) {
  ShellResult result;
  FILE* pipe = popen((command_line + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

#ifdef SERVEBENCH_BIN
// Runs the servebench binary under test with `args`; `env` ("NAME=value ...") first.
inline ShellResult RunServebench(const std::string& args, const std::string& env = "") {
  return RunShell(env + (env.empty() ? "" : " ") + SERVEBENCH_BIN + " " + args);
}
#endif

}  // namespace servebench::testing
