#include "eval/testing/sim_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

namespace servebench::eval::testing {

SimProcess::SimProcess(const std::string& binary, double error_rate, uint64_t seed) {
  // Everything the child needs is built before fork(): allocating after fork in
  // a process with threads can deadlock.
  std::string rate = std::to_string(error_rate);
  std::string seed_text = std::to_string(seed);
  int fds[2];
  if (pipe(fds) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    execl(binary.c_str(), binary.c_str(), "sim", "--host", "127.0.0.1", "--port", "0",
          "--time-scale", "0", "--answer-mode", "oracle", "--answer-error-rate", rate.c_str(),
          "--seed", seed_text.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  out_ = fdopen(fds[0], "r");
  char line[4096];
  // "servebench sim: listening on http://127.0.0.1:PORT (port PORT)", then "ready".
  for (int i = 0; i < 20 && out_ != nullptr && std::fgets(line, sizeof line, out_); ++i) {
    std::string text(line);
    if (size_t at = text.find("listening on http://"); at != std::string::npos) {
      size_t end = text.find_first_of(" \n", at + 13);
      url_ = text.substr(at + 13, end - at - 13);
    }
    if (text.find("ready") != std::string::npos) break;
  }
  // Keep reading so the sim never blocks on a full pipe; ends at its exit.
  if (out_ != nullptr) {
    drain_ = std::thread([out = out_] {
      char buffer[4096];
      while (std::fgets(buffer, sizeof buffer, out) != nullptr) {
      }
    });
  }
}

SimProcess::~SimProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    bool exited = false;
    for (int i = 0; i < 100 && !exited; ++i) {
      exited = waitpid(pid_, nullptr, WNOHANG) == pid_;
      if (!exited) usleep(20'000);
    }
    if (!exited) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (drain_.joinable()) drain_.join();
  if (out_ != nullptr) fclose(out_);
}

}  // namespace servebench::eval::testing
