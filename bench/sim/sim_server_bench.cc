// bench_sim_server: a minimal epoll HTTP/SSE driver (no servebench client code, so
// it can measure the server alone) against the real `servebench sim` binary.
//
//   1. Throughput: 1,000 keep-alive connections each stream completions
//      (max_tokens 2,000, ignore_eos) from `servebench sim --time-scale 0`; every
//      finished stream is replaced at once. Reports SSE events received per second
//      and the server process's CPU use (the server is one thread).
//   2. Capacity: 10,000 connections each hold an open stream (time scale 1, a
//      model slow enough that streams stay open); reports how many were served and
//      the server's resident memory before and after.
//
// Usage: bench_sim_server [--seconds S] [--streams N] [--hold M]
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/testing/sim_process.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Starts servebench sim with `args` (sim/testing/sim_process.h) and waits for its
// ready line; exits the bench when it does not come.
std::unique_ptr<servebench::sim::testing::SimProcess> Start(const std::vector<std::string>& args) {
  auto sim = std::make_unique<servebench::sim::testing::SimProcess>(args, /*wait_ready=*/true, 30);
  if (!sim->ready()) {
    std::fprintf(stderr, "bench_sim_server: server did not start:\n%s\n", sim->output().c_str());
    std::exit(1);
  }
  return sim;
}

// utime + stime of a process, seconds.
double CpuSeconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t p = stat.rfind(')');
  if (p == std::string::npos) return 0;
  std::vector<std::string> fields;
  size_t i = p + 2;
  while (i < stat.size()) {
    size_t j = stat.find(' ', i);
    if (j == std::string::npos) j = stat.size();
    fields.push_back(stat.substr(i, j - i));
    i = j + 1;
  }
  // fields[0] is state (field 3); utime is field 14, stime 15.
  return (std::atof(fields[11].c_str()) + std::atof(fields[12].c_str())) / sysconf(_SC_CLK_TCK);
}

double LoadAverage() {
  std::ifstream f("/proc/loadavg");
  double l = 0;
  f >> l;
  return l;
}

long RssKb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);  // EINPROGRESS
  return fd;
}

struct Conn {
  int fd = -1;
  std::string tail;  // last bytes of the previous read (patterns split across reads)
  bool sent = false;
  uint64_t events = 0;
};

std::string Request(int max_tokens) {
  std::string body = fmt::format(
      R"({{"prompt":"bench","max_tokens":{},"ignore_eos":true,"stream":true}})", max_tokens);
  return fmt::format(
      "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: {}\r\n\r\n{}",
      body.size(), body);
}

// Counts occurrences of `pat` in tail + data; keeps the tail.
uint64_t CountAndKeepTail(Conn& c, std::string_view data, std::string_view pat, bool* saw_end) {
  std::string joined = c.tail;
  joined.append(data);
  uint64_t n = 0;
  size_t pos = 0;
  while ((pos = joined.find(pat, pos)) != std::string::npos) {
    ++n;
    pos += pat.size();
  }
  *saw_end = joined.find("\r\n0\r\n\r\n") != std::string::npos;
  size_t keep = std::min<size_t>(joined.size(), 16);
  c.tail = joined.substr(joined.size() - keep);
  return n;
}

void Throughput(int streams, double seconds) {
  auto s = Start({"--time-scale", "0", "--max-num-seqs", std::to_string(streams),
                  "--max-num-batched-tokens", "1000000"});
  int ep = epoll_create1(0);
  std::vector<Conn> conns(static_cast<size_t>(streams));
  const std::string req = Request(2000);
  for (auto& c : conns) {
    c.fd = Connect(s->port());
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT;
    ev.data.ptr = &c;
    epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &ev);
  }
  std::vector<epoll_event> evs(1024);
  std::vector<char> buf(1 << 18);
  uint64_t events = 0, warm_events = 0;
  const double warmup = 1.0;
  double start = Now(), measure_start = 0, cpu_start = 0, client_cpu_start = 0;
  bool measuring = false;
  while (Now() - start < warmup + seconds) {
    if (!measuring && Now() - start >= warmup) {
      measuring = true;
      warm_events = events;
      measure_start = Now();
      cpu_start = CpuSeconds(s->pid());
      client_cpu_start = CpuSeconds(getpid());
    }
    int n = epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 100);
    for (int i = 0; i < n; ++i) {
      Conn& c = *static_cast<Conn*>(evs[i].data.ptr);
      if ((evs[i].events & EPOLLOUT) && !c.sent) {
        if (write(c.fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) c.sent = true;
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.ptr = &c;
        epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
      }
      if (evs[i].events & EPOLLIN) {
        ssize_t r = read(c.fd, buf.data(), buf.size());
        if (r <= 0) continue;
        bool end = false;
        events += CountAndKeepTail(c, std::string_view(buf.data(), static_cast<size_t>(r)),
                                   "data: ", &end);
        if (end) {  // stream done: the next one on the same keep-alive connection
          c.tail.clear();
          if (write(c.fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) std::abort();
        }
      }
    }
  }
  double elapsed = Now() - measure_start;
  double cpu = CpuSeconds(s->pid()) - cpu_start;
  double client_cpu = CpuSeconds(getpid()) - client_cpu_start;
  uint64_t measured = events - warm_events;
  std::printf(
      "sse_throughput: %d concurrent streams, --time-scale 0, %.1f s: %.0f SSE events/s received; "
      "server CPU %.2f s (%.0f%% of one core) -> %.0f events per server-CPU-second; bench client "
      "CPU %.2f s; "
      "load average %.1f\n",
      streams, elapsed, measured / elapsed, cpu, 100 * cpu / elapsed,
      cpu > 0 ? measured / cpu : 0.0, client_cpu, LoadAverage());
  for (auto& c : conns) close(c.fd);
  close(ep);
  s.reset();
}

void Hold(int count) {
  auto s = Start({"--time-scale", "1", "--model", "llama-3.1-70b", "--tensor-parallel-size", "8",
                  "--max-num-seqs", std::to_string(count), "--max-num-batched-tokens", "1000000"});
  long rss_before = RssKb(s->pid());
  int ep = epoll_create1(0);
  std::vector<Conn> conns(static_cast<size_t>(count));
  const std::string req = Request(100000);
  int opened = 0, with_event = 0;
  std::vector<epoll_event> evs(1024);
  std::vector<char> buf(1 << 16);
  double start = Now();
  for (auto& c : conns) {
    c.fd = Connect(s->port());
    if (c.fd < 0) break;
    ++opened;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT;
    ev.data.ptr = &c;
    epoll_ctl(ep, EPOLL_CTL_ADD, c.fd, &ev);
  }
  // Until every stream has delivered an event (or 60 s).
  while (with_event < opened && Now() - start < 60) {
    int n = epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 100);
    for (int i = 0; i < n; ++i) {
      Conn& c = *static_cast<Conn*>(evs[i].data.ptr);
      if ((evs[i].events & EPOLLOUT) && !c.sent) {
        if (write(c.fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) c.sent = true;
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.ptr = &c;
        epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
      }
      if (evs[i].events & EPOLLIN) {
        ssize_t r = read(c.fd, buf.data(), buf.size());
        if (r <= 0) continue;
        bool end = false;
        uint64_t k = CountAndKeepTail(c, std::string_view(buf.data(), static_cast<size_t>(r)),
                                      "data: ", &end);
        if (c.events == 0 && k > 0) ++with_event;
        c.events += k;
      }
    }
  }
  long rss_after = RssKb(s->pid());
  std::printf(
      "connections_held: %d of %d connections open with a live stream each (all delivering events: "
      "%s) "
      "after %.1f s; server RSS %.1f MiB idle -> %.1f MiB held (%.1f KiB per connection)\n",
      with_event, count, with_event == count ? "yes" : "no", Now() - start, rss_before / 1024.0,
      rss_after / 1024.0, opened ? (rss_after - rss_before) / static_cast<double>(opened) : 0.0);
  for (auto& c : conns) {
    if (c.fd >= 0) close(c.fd);
  }
  close(ep);
  s.reset();
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  int streams = 1000, hold = 10000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--seconds")
      seconds = std::atof(argv[i + 1]);
    else if (a == "--streams")
      streams = std::atoi(argv[i + 1]);
    else if (a == "--hold")
      hold = std::atoi(argv[i + 1]);
  }
  // 10,000 sockets on each side need more than the default 1,024 descriptors; the
  // server inherits the raised limit.
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
  signal(SIGPIPE, SIG_IGN);
  Throughput(streams, seconds);
  if (hold > 0) Hold(hold);
  return 0;
}
