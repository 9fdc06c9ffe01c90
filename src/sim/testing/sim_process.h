// Test support for every module that talks to the real simulated engine: starts the
// `servebench sim` binary under test (SERVEBENCH_BIN) on a free loopback port as a
// child process, keeps everything it prints, and stops it. Plus a small blocking
// HTTP/1.1 exchange for tests that need the raw response: its status line and
// headers, each SSE event with its arrival time, or a request sent now and read
// later. Every wait is bounded. Not thread-safe. Tests only.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace servebench::sim::testing {

class SimProcess {
 public:
  // Starts `<binary> sim --port 0 <args>` (`binary` empty: SERVEBENCH_BIN, the build's
  // servebench) and waits up to `ready_timeout_s` for its ready line, or only for its
  // port line when `wait_ready` is false. A sim that exits first or is not ready in
  // time leaves ready() false (port() 0 if it never listened); output() says why.
  explicit SimProcess(const std::vector<std::string>& args, bool wait_ready = true,
                      double ready_timeout_s = 20, const std::string& binary = "");
  ~SimProcess();  // SIGTERM, then SIGKILL after 5 s; always reaped
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  bool ready() const;
  int port() const;
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  pid_t pid() const { return pid_; }
  // Everything the process printed so far (stdout and stderr, as written).
  std::string output() const;
  // Waits up to `timeout_s` for the process to exit; its exit code (128 + signal when
  // a signal ended it), or -1 when it is still running.
  int WaitExit(double timeout_s);

 private:
  void ReadOutput(int fd);  // the reader thread: drains the pipe so the sim never blocks

  pid_t pid_ = -1;
  bool exited_ = false;
  int exit_code_ = -1;
  std::thread reader_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::string output_;  // guarded by mu_
  int port_ = 0;        // guarded by mu_
  bool ready_ = false;  // guarded by mu_
  bool eof_ = false;    // guarded by mu_
};

struct HttpResponse {
  int status = 0;  // 0 = no response (connection failed or closed early)
  std::string headers;
  std::string body;                      // de-chunked
  bool complete = false;                 // the whole response arrived (length, last chunk or close)
  std::vector<std::string> data_events;  // SSE "data: " payloads, in order
  std::vector<double> event_times_ms;    // arrival time of each data event, ms since send
};

// One request on a fresh connection to 127.0.0.1:port; waits up to timeout_s for the
// whole response.
HttpResponse Http(int port, const std::string& method, const std::string& path,
                  const std::string& body = "", double timeout_s = 20);

// Opens a connection and sends a request without reading; returns the fd (caller
// closes), or -1 when nothing accepts the connection.
int SendOnly(int port, const std::string& method, const std::string& path, const std::string& body);
// Reads a response from `fd` (as Http does) and closes it.
HttpResponse ReadResponse(int fd, double timeout_s = 20);

}  // namespace servebench::sim::testing
