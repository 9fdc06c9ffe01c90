// SimProcess: runs `servebench sim --port 0 ...` as a child process for
// integration tests, waits for its ready line and reads the port it printed.
// The destructor stops it (SIGTERM, then SIGKILL after 5 s). Tests only.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::client::testing {

class SimProcess {
 public:
  // Starts `binary sim --port 0 <args>`; fails when it exits or is not ready in time.
  static StatusOr<std::unique_ptr<SimProcess>> Start(const std::string& binary,
                                                     const std::vector<std::string>& args,
                                                     double ready_timeout_s = 20);
  ~SimProcess();
  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  pid_t pid() const { return pid_; }

 private:
  SimProcess() = default;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int port_ = 0;
};

// Runs a command to completion with a deadline; returns its exit code (or -signal)
// and its stdout. The command's stderr is kept in `stderr_text` when given.
struct ProcessResult {
  int exit_code = 0;
  std::string out, err;
  bool timed_out = false;
};
ProcessResult RunProcess(const std::vector<std::string>& argv, double timeout_s);

}  // namespace servebench::client::testing
