// Vendor command-line tools run as child processes: one-shot queries whose output
// is read whole (RunCommand), and streams read line by line until stopped
// (LineStream). Commands are found on PATH (posix_spawnp); the child gets its own
// process group so stopping it stops whatever it started.
// Thread-safety: a LineStream is driven by one owner thread; its callback runs on
// the stream's reader thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"

namespace servebench::telemetry {

struct CommandOutput {
  int exit_code = -1;  // -1 when killed by a signal or timed out
  std::string out, err;
};

// Runs `argv` (argv[0] looked up on PATH) with `extra_env` ("NAME=value") added,
// waits up to `timeout_s`. NotFound when argv[0] is not on PATH; DeadlineExceeded
// (child killed) past the timeout.
StatusOr<CommandOutput> RunCommand(const std::vector<std::string>& argv, double timeout_s,
                                   const std::vector<std::string>& extra_env = {});

// True when `name` is an executable file on PATH (or a path to one).
bool OnPath(const std::string& name);

class LineStream {
 public:
  using OnLine = std::function<void(const std::string& line)>;
  // Starts `argv`; `on_line` receives each complete stdout line (without the
  // newline or a trailing '\r'); a last line without a newline is dropped (a
  // killed monitor can truncate it). Fails when the command cannot be started.
  static StatusOr<std::unique_ptr<LineStream>> Start(const std::vector<std::string>& argv,
                                                     const std::vector<std::string>& extra_env,
                                                     OnLine on_line);
  ~LineStream();  // Stop()
  LineStream(const LineStream&) = delete;
  LineStream& operator=(const LineStream&) = delete;

  // SIGTERM to the child's group, SIGKILL after 2 s; joins the reader. Idempotent.
  // Returns the child's stderr (the first 4 KiB) for diagnostics.
  std::string Stop();
  // True once the child's stdout closed (it exited by itself or was stopped).
  bool ended() const { return ended_.load(); }

 private:
  LineStream() = default;
  void ReadLoop();

  pid_t pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  OnLine on_line_;
  std::thread reader_;
  std::atomic<bool> ended_{false};
  std::string err_;
  bool stopped_ = false;
};

}  // namespace servebench::telemetry
