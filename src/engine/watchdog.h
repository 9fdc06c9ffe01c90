// Internal to engine/: forks the watchdog process that owns one engine process
// (see supervisor.h for the process tree). Everything the children need is prepared
// here before fork(); after fork() they call only async-signal-safe functions, as a
// multi-threaded parent requires.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::engine::internal {

struct WatchdogLaunch {
  pid_t watchdog_pid = -1;
  // Read end (non-blocking, close-on-exec). The watchdog writes the engine's pid
  // (int32) once started, then, in one write, the engine's raw wait status and the
  // cleanup command's (int32 each; -1 when there is no cleanup) once the engine
  // ended, its group was emptied and the cleanup ran. EOF without them means the
  // watchdog itself died.
  int status_fd = -1;
};

// Starts `argv` (PATH lookup) with servebench's environment plus `env`, stdin from
// /dev/null, stdout and stderr to `log_fd`. `stop_grace_ms`: how long the watchdog
// waits after SIGTERM to the engine's group before SIGKILL. `cleanup_argv` (may be
// empty) runs after the engine is gone — also when servebench died — with output to
// the log, for at most 30 s (docker rm -f NAME). A non-empty `working_dir` is the
// engine's current folder (failing to enter it logs "servebench: cannot enter DIR"
// and exits 127, as a missing binary does). `inherit_environment` false: `env` is the
// whole environment.
StatusOr<WatchdogLaunch> LaunchWithWatchdog(const std::vector<std::string>& argv,
                                            const std::map<std::string, std::string>& env,
                                            int log_fd, int stop_grace_ms,
                                            const std::vector<std::string>& cleanup_argv = {},
                                            const std::string& working_dir = "",
                                            bool inherit_environment = true);

}  // namespace servebench::engine::internal
