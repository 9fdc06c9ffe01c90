#include "sim/testing/sim_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "net/http_response_parser.h"

#ifndef SERVEBENCH_BIN
#define SERVEBENCH_BIN "servebench"
#endif

namespace servebench::sim::testing {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Output past this is dropped (still drained): a test never needs more.
constexpr size_t kMaxOutputBytes = 8u << 20;

}  // namespace

SimProcess::SimProcess(const std::vector<std::string>& args, bool wait_ready,
                       double ready_timeout_s, const std::string& binary) {
  // Everything the child needs is built before fork(): allocating after fork in a
  // process with threads can deadlock.
  std::vector<std::string> argv_text = {binary.empty() ? SERVEBENCH_BIN : binary, "sim", "--port",
                                        "0"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  if (pid_ < 0) {
    close(fds[0]);
    return;
  }
  reader_ = std::thread([this, fd = fds[0]] { ReadOutput(fd); });
  std::unique_lock lock(mu_);
  changed_.wait_for(lock, std::chrono::duration<double>(ready_timeout_s),
                    [&] { return eof_ || (port_ > 0 && (ready_ || !wait_ready)); });
}

void SimProcess::ReadOutput(int fd) {
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    std::lock_guard lock(mu_);
    if (output_.size() < kMaxOutputBytes) output_.append(buf, static_cast<size_t>(n));
    // "servebench sim: listening on http://127.0.0.1:PORT (port PORT)", then "ready".
    if (size_t at = output_.find("(port "); port_ == 0 && at != std::string::npos) {
      port_ = std::atoi(output_.c_str() + at + 6);
    }
    ready_ = ready_ || output_.find("servebench sim: ready") != std::string::npos;
    changed_.notify_all();
  }
  close(fd);
  std::lock_guard lock(mu_);
  eof_ = true;
  changed_.notify_all();
}

bool SimProcess::ready() const {
  std::lock_guard lock(mu_);
  return ready_;
}

int SimProcess::port() const {
  std::lock_guard lock(mu_);
  return port_;
}

std::string SimProcess::output() const {
  std::lock_guard lock(mu_);
  return output_;
}

int SimProcess::WaitExit(double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (!exited_ && pid_ > 0) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (Clock::now() >= deadline) return -1;
    usleep(10'000);
  }
  // The pipe closes with the process: wait (briefly) for its last words.
  std::unique_lock lock(mu_);
  changed_.wait_for(lock, std::chrono::seconds(2), [&] { return eof_; });
  return exit_code_;
}

SimProcess::~SimProcess() {
  if (pid_ > 0 && !exited_) {
    kill(pid_, SIGTERM);
    if (WaitExit(5) < 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      exited_ = true;
    }
  }
  if (reader_.joinable()) reader_.join();
}

int SendOnly(int port, const std::string& method, const std::string& path,
             const std::string& body) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  std::string req =
      method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  size_t off = 0;
  while (off < req.size()) {
    ssize_t n = send(fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  return fd;
}

HttpResponse ReadResponse(int fd, double timeout_s) {
  HttpResponse r;
  if (fd < 0) return r;
  const auto start = Clock::now();
  const double deadline_ms = timeout_s * 1000;
  std::string head;  // the bytes up to the end of the headers
  std::string sse;   // body bytes not yet split into events
  net::HttpResponseParser parser([&](std::string_view bytes) {
    r.body.append(bytes);
    sse.append(bytes);
    for (size_t end; (end = sse.find("\n\n")) != std::string::npos; sse.erase(0, end + 2)) {
      if (sse.compare(0, 6, "data: ") == 0) {
        r.data_events.push_back(sse.substr(6, end - 6));
        r.event_times_ms.push_back(MsSince(start));
      }
    }
  });
  while (!parser.complete() && MsSince(start) < deadline_ms) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      parser.OnEof();
      break;
    }
    if (!parser.headers_done()) head.append(buf, static_cast<size_t>(n));
    if (!parser.Feed(std::string_view(buf, static_cast<size_t>(n))).ok()) break;
  }
  close(fd);
  if (parser.headers_done()) {
    r.status = parser.status();
    r.headers = head.substr(0, head.find("\r\n\r\n"));
  }
  r.complete = parser.complete();
  return r;
}

HttpResponse Http(int port, const std::string& method, const std::string& path,
                  const std::string& body, double timeout_s) {
  return ReadResponse(SendOnly(port, method, path, body), timeout_s);
}

}  // namespace servebench::sim::testing
