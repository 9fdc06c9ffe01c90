// Test support for sim/ integration tests: starts the real `servebench sim`
// binary on a free loopback port and talks HTTP/1.1 to it with a small blocking
// client. Every wait is bounded. Not thread-safe.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace servebench::sim::testing {

class SimProcess {
 public:
  // Starts `servebench sim --port 0 <args>` and waits (≤ 15 s) for the ready
  // line, unless `wait_ready` is false (then only the port line).
  explicit SimProcess(const std::vector<std::string>& args, bool wait_ready = true);
  ~SimProcess();  // SIGTERM, then SIGKILL after 5 s; always reaped
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  // Everything the process printed so far (stdout and stderr).
  const std::string& output();
  // Waits ≤ timeout_s for exit; returns the exit code, or -1 on timeout.
  int WaitExit(double timeout_s);

 private:
  void ReadAvailable(int timeout_ms);
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int port_ = 0;
  bool exited_ = false;
  int exit_code_ = -1;
  std::string output_;
};

struct HttpResponse {
  int status = 0;  // 0 = no response (connection failed or closed early)
  std::string headers;
  std::string body;       // de-chunked
  bool complete = false;  // the whole response arrived (Content-Length or last chunk)
  std::vector<std::string> data_events;  // SSE "data: " payloads, in order
  std::vector<double> event_times_ms;    // arrival time of each data event, ms since send
};

// One request on a fresh connection; waits ≤ timeout_s for the whole response.
HttpResponse Http(int port, const std::string& method, const std::string& path,
                  const std::string& body = "", double timeout_s = 20);

// Opens a connection and sends a request without reading; returns the fd (caller closes).
int SendOnly(int port, const std::string& method, const std::string& path, const std::string& body);
// Reads a response from `fd` (as Http does) and closes it.
HttpResponse ReadResponse(int fd, double timeout_s = 20);

}  // namespace servebench::sim::testing
