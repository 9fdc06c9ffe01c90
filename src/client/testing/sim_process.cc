#include "client/testing/sim_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

namespace servebench::client::testing {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

pid_t Spawn(const std::vector<std::string>& argv, int* out_fd, int* err_fd) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  *out_fd = out_pipe[0];
  *err_fd = err_pipe[0];
  return pid;
}

}  // namespace

StatusOr<std::unique_ptr<SimProcess>> SimProcess::Start(const std::string& binary,
                                                        const std::vector<std::string>& args,
                                                        double ready_timeout_s) {
  std::vector<std::string> argv = {binary, "sim", "--port", "0"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::unique_ptr<SimProcess> p(new SimProcess());
  int err_fd = -1;
  p->pid_ = Spawn(argv, &p->out_fd_, &err_fd);
  if (p->pid_ < 0) return Status::Internal("fork failed");
  close(err_fd);  // the sim's stderr is not needed; closing it never blocks the sim
  std::string out;
  int64_t deadline = NowMs() + static_cast<int64_t>(ready_timeout_s * 1000);
  while (NowMs() < deadline) {
    pollfd pfd{p->out_fd_, POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    char buf[4096];
    ssize_t n = read(p->out_fd_, buf, sizeof(buf));
    if (n <= 0) return Status::Unavailable("servebench sim exited before ready: " + out);
    out.append(buf, static_cast<size_t>(n));
    if (size_t at = out.find("(port "); at != std::string::npos && p->port_ == 0) {
      p->port_ = std::atoi(out.c_str() + at + 6);
    }
    if (p->port_ > 0 && out.find("ready") != std::string::npos) {
      // Keep draining stdout so the sim never blocks on a full pipe.
      int fd = p->out_fd_;
      std::thread([fd] {
        char b[4096];
        while (read(fd, b, sizeof(b)) > 0) {
        }
      }).detach();
      p->out_fd_ = -1;
      return p;
    }
  }
  return Status::DeadlineExceeded("servebench sim not ready in time; output: " + out);
}

SimProcess::~SimProcess() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 500; ++i) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

ProcessResult RunProcess(const std::vector<std::string>& argv, double timeout_s) {
  ProcessResult r;
  int out_fd, err_fd;
  pid_t pid = Spawn(argv, &out_fd, &err_fd);
  int64_t deadline = NowMs() + static_cast<int64_t>(timeout_s * 1000);
  bool out_open = true, err_open = true;
  while ((out_open || err_open) && NowMs() < deadline) {
    pollfd pfd[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    if (poll(pfd, 2, 100) <= 0) continue;
    char buf[4096];
    for (int i = 0; i < 2; ++i) {
      if (!(pfd[i].revents & (POLLIN | POLLHUP))) continue;
      ssize_t n = read(pfd[i].fd, buf, sizeof(buf));
      if (n <= 0) {
        (i == 0 ? out_open : err_open) = false;
        pfd[i].fd = -1;
        continue;
      }
      (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
    }
  }
  if (out_open || err_open) {
    r.timed_out = true;
    kill(pid, SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(out_fd);
  close(err_fd);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return r;
}

}  // namespace servebench::client::testing
