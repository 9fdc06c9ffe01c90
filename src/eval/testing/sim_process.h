// Test-only: `servebench sim` in answering mode as a child process on 127.0.0.1
// (an ephemeral port, read from its startup line). The destructor stops it
// (SIGTERM, then SIGKILL after 2 s). Not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

namespace servebench::eval::testing {

class SimProcess {
 public:
  // Runs `binary sim --time-scale 0 --answer-mode oracle --answer-error-rate R --seed S`.
  SimProcess(const std::string& binary, double error_rate, uint64_t seed);
  ~SimProcess();
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  // http://127.0.0.1:PORT, or "" when the sim did not start.
  const std::string& url() const { return url_; }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  std::thread drain_;
  std::string url_;
};

}  // namespace servebench::eval::testing
