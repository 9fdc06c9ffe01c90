#include "sim/testing/sim_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#ifndef SERVEBENCH_BIN
#define SERVEBENCH_BIN "servebench"
#endif

namespace servebench::sim::testing {
namespace {
double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

SimProcess::SimProcess(const std::vector<std::string>& args, bool wait_ready) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  std::vector<std::string> argv_s = {SERVEBENCH_BIN, "sim", "--port", "0"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  out_fd_ = fds[0];
  fcntl(out_fd_, F_SETFL, O_NONBLOCK);
  double deadline = NowMs() + 15000;
  while (NowMs() < deadline) {
    ReadAvailable(50);
    size_t at = output_.find("(port ");
    if (at != std::string::npos && port_ == 0) port_ = std::atoi(output_.c_str() + at + 6);
    bool ready = output_.find("servebench sim: ready") != std::string::npos;
    if (port_ > 0 && (ready || !wait_ready)) return;
    int status;
    if (!exited_ && waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      ReadAvailable(50);
      return;
    }
  }
}

void SimProcess::ReadAvailable(int timeout_ms) {
  pollfd p{out_fd_, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return;
  char buf[4096];
  for (;;) {
    ssize_t n = read(out_fd_, buf, sizeof buf);
    if (n <= 0) return;
    output_.append(buf, static_cast<size_t>(n));
  }
}

const std::string& SimProcess::output() {
  ReadAvailable(0);
  return output_;
}

int SimProcess::WaitExit(double timeout_s) {
  double deadline = NowMs() + timeout_s * 1000;
  while (!exited_ && NowMs() < deadline) {
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    ReadAvailable(20);
  }
  ReadAvailable(0);
  return exited_ ? exit_code_ : -1;
}

SimProcess::~SimProcess() {
  if (pid_ > 0 && !exited_) {
    kill(pid_, SIGTERM);
    if (WaitExit(5) < 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (out_fd_ >= 0) close(out_fd_);
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
    ssize_t n = write(fd, req.data() + off, req.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  return fd;
}

HttpResponse ReadResponse(int fd, double timeout_s) {
  HttpResponse r;
  if (fd < 0) return r;
  double start = NowMs(), deadline = start + timeout_s * 1000;
  std::string raw;
  size_t header_end = std::string::npos;
  bool chunked = false;
  size_t content_length = 0, pos = 0;  // pos: parse position in raw for the body
  std::string sse_buf;
  auto feed_sse = [&](const std::string& data) {
    sse_buf += data;
    size_t e;
    while ((e = sse_buf.find("\n\n")) != std::string::npos) {
      std::string ev = sse_buf.substr(0, e);
      sse_buf.erase(0, e + 2);
      if (ev.rfind("data: ", 0) == 0) {
        r.data_events.push_back(ev.substr(6));
        r.event_times_ms.push_back(NowMs() - start);
      }
    }
  };
  while (!r.complete && NowMs() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    raw.append(buf, static_cast<size_t>(n));
    if (header_end == std::string::npos) {
      header_end = raw.find("\r\n\r\n");
      if (header_end == std::string::npos) continue;
      r.headers = raw.substr(0, header_end);
      r.status = std::atoi(r.headers.c_str() + 9);
      std::string lower = r.headers;
      for (auto& c : lower) c = static_cast<char>(std::tolower(c));
      chunked = lower.find("transfer-encoding: chunked") != std::string::npos;
      size_t cl = lower.find("content-length:");
      if (cl != std::string::npos)
        content_length = std::strtoul(lower.c_str() + cl + 15, nullptr, 10);
      pos = header_end + 4;
    }
    if (chunked) {
      for (;;) {
        size_t le = raw.find("\r\n", pos);
        if (le == std::string::npos) break;
        size_t len = std::strtoul(raw.c_str() + pos, nullptr, 16);
        if (raw.size() < le + 2 + len + 2) break;
        if (len == 0) {
          r.complete = true;
          break;
        }
        std::string data = raw.substr(le + 2, len);
        r.body += data;
        feed_sse(data);
        pos = le + 2 + len + 2;
      }
    } else if (raw.size() - pos >= content_length) {
      r.body = raw.substr(pos, content_length);
      r.complete = true;
    }
  }
  close(fd);
  return r;
}

HttpResponse Http(int port, const std::string& method, const std::string& path,
                  const std::string& body, double timeout_s) {
  return ReadResponse(SendOnly(port, method, path, body), timeout_s);
}

}  // namespace servebench::sim::testing
