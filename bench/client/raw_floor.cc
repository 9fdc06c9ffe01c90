#include "raw_floor.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

namespace servebench::bench {
namespace {

constexpr std::string_view kDoneTail = "[DONE]\n";  // what precedes the "\n" ending [DONE]

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Conn {
  int fd = -1;
  bool busy = false;
  bool last_was_lf = false;  // the previous byte read was '\n'
  // The last bytes read, so "[DONE]\n\n" split across two reads is still seen.
  char tail[8] = {};
  size_t tail_len = 0;
};

int ConnectLoopback(int port, std::string* error) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    *error = "connect 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as servebench does
  return fd;
}

// Writes all of `bytes` (a blocking socket: requests are small).
bool SendAll(int fd, const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// True when the "\n" at buf[i] is preceded by "[DONE]\n", looking back into `c.tail`
// for bytes of the previous read.
bool EndsDone(const Conn& c, const char* buf, size_t i) {
  const size_t need = kDoneTail.size();
  for (size_t k = 1; k <= need; ++k) {
    char ch;
    if (i >= k) {
      ch = buf[i - k];
    } else if (k - i <= c.tail_len) {
      ch = c.tail[c.tail_len - (k - i)];
    } else {
      return false;
    }
    if (ch != kDoneTail[need - k]) return false;
  }
  return true;
}

}  // namespace

FloorResult RunRawFloor(const FloorRun& run) {
  FloorResult out;
  const int64_t total = static_cast<int64_t>(run.requests.size());
  std::vector<Conn> conns(static_cast<size_t>(std::max<int64_t>(run.connections, 1)));
  int ep = ::epoll_create1(EPOLL_CLOEXEC);
  auto finish = [&](std::string error) {
    for (Conn& c : conns) {
      if (c.fd >= 0) ::close(c.fd);
    }
    if (ep >= 0) ::close(ep);
    out.error = std::move(error);
    return out;
  };
  for (size_t i = 0; i < conns.size(); ++i) {
    std::string error;
    conns[i].fd = ConnectLoopback(run.port, &error);
    if (conns[i].fd < 0) return finish(error);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  }

  const double t0 = Now(), cpu0 = CpuSeconds();
  int64_t next = 0, in_flight = 0;
  auto start_next = [&](Conn& c) {
    if (next >= total) return true;
    c.busy = true;
    ++in_flight;
    return SendAll(c.fd, run.requests[static_cast<size_t>(next++)]);
  };
  for (Conn& c : conns) {
    if (!start_next(c)) return finish("send failed: " + std::string(std::strerror(errno)));
  }
  static char buf[64 * 1024];
  epoll_event ready[256];
  while (in_flight > 0) {
    if (Now() - t0 > run.timeout_s) return finish("timed out");
    int n = ::epoll_wait(ep, ready, 256, 1000);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return finish(std::string("epoll_wait: ") + std::strerror(errno));
    for (int e = 0; e < n; ++e) {
      Conn& c = conns[ready[e].data.u64];
      ssize_t got = ::read(c.fd, buf, sizeof buf);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        if (c.busy) return finish("connection closed or failed mid-stream");
        // An idle socket the server closed: drop it, or level-triggered epoll would
        // report it again on every wait and spin.
        ::epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
        c.fd = -1;
        continue;
      }
      const size_t len = static_cast<size_t>(got);
      ++out.reads;
      bool done = false;
      for (const char* p = buf;
           (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(buf + len - p))));
           ++p) {
        const size_t i = static_cast<size_t>(p - buf);
        const bool prev_lf = i > 0 ? buf[i - 1] == '\n' : c.last_was_lf;
        if (!prev_lf) continue;
        if (EndsDone(c, buf, i)) {
          done = true;
        } else {
          ++out.events;
        }
      }
      c.last_was_lf = buf[len - 1] == '\n';
      c.tail_len = std::min(len, sizeof c.tail);
      std::memcpy(c.tail, buf + len - c.tail_len, c.tail_len);
      if (done) {
        // The response's last-chunk marker may still be on its way: it holds no "\n\n",
        // so reading it as part of the next response counts nothing.
        c.busy = false;
        --in_flight;
        ++out.requests_done;
        if (!start_next(c)) return finish("send failed: " + std::string(std::strerror(errno)));
      }
    }
  }
  out.wall_s = Now() - t0;
  out.cpu_s = CpuSeconds() - cpu0;
  return finish("");
}

}  // namespace servebench::bench
