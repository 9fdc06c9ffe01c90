#include "telemetry/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

#include "common/clock.h"

extern char** environ;

namespace servebench::telemetry {
namespace {

constexpr size_t kMaxStderrBytes = 4096;

struct Spawned {
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;
};

std::vector<std::string> MergedEnv(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    std::string name = kv.substr(0, kv.find('='));
    bool overridden = false;
    for (const std::string& x : extra) overridden = overridden || x.substr(0, x.find('=')) == name;
    if (!overridden) env.push_back(kv);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

StatusOr<Spawned> Spawn(const std::vector<std::string>& argv,
                        const std::vector<std::string>& extra_env) {
  if (argv.empty()) return Status::Internal("empty command");
  if (!OnPath(argv[0])) {
    return Status::NotFound(argv[0] + ": not found on PATH");
  }
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    return Status::Internal(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return Status::Internal(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env = MergedEnv(extra_env);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &fa, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    return Status::Unavailable(argv[0] + ": cannot start: " + std::strerror(rc));
  }
  return Spawned{pid, out[0], err[0]};
}

// Reads what is available on `fd` into `buf` (up to `cap` kept); false at EOF.
bool ReadSome(int fd, std::string* buf, size_t cap) {
  char tmp[4096];
  ssize_t n = read(fd, tmp, sizeof(tmp));
  if (n > 0) {
    if (buf->size() < cap)
      buf->append(
          tmp, static_cast<size_t>(std::min<ssize_t>(n, static_cast<ssize_t>(cap - buf->size()))));
    return true;
  }
  return n < 0 && (errno == EINTR || errno == EAGAIN);
}

void KillGroup(pid_t pid) {
  kill(-pid, SIGTERM);
  for (int i = 0; i < 200; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      kill(-pid, SIGKILL);  // anything the tool left behind in its group
      return;
    }
    usleep(10'000);
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace

bool OnPath(const std::string& name) {
  auto executable = [](const std::string& p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) return executable(name);
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (executable((dir.empty() ? "." : dir) + "/" + name)) return true;
  }
  return false;
}

StatusOr<CommandOutput> RunCommand(const std::vector<std::string>& argv, double timeout_s,
                                   const std::vector<std::string>& extra_env) {
  SB_ASSIGN_OR_RETURN(Spawned child, Spawn(argv, extra_env));
  CommandOutput result;
  int64_t deadline = MonotonicNowNs() + static_cast<int64_t>(timeout_s * 1e9);
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    int64_t left_ms = (deadline - MonotonicNowNs()) / 1'000'000;
    if (left_ms <= 0) {
      KillGroup(child.pid);
      close(child.out_fd);
      close(child.err_fd);
      return Status::DeadlineExceeded(argv[0] + ": no answer within " + std::to_string(timeout_s) +
                                      " s (killed)");
    }
    pollfd fds[2] = {{out_open ? child.out_fd : -1, POLLIN, 0},
                     {err_open ? child.err_fd : -1, POLLIN, 0}};
    int n = poll(fds, 2, static_cast<int>(std::min<int64_t>(left_ms, 1000)));
    if (n < 0 && errno != EINTR) break;
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      out_open = ReadSome(child.out_fd, &result.out, 16u << 20);
    }
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      err_open = ReadSome(child.err_fd, &result.err, kMaxStderrBytes);
    }
  }
  close(child.out_fd);
  close(child.err_fd);
  int status = 0;
  waitpid(child.pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

StatusOr<std::unique_ptr<LineStream>> LineStream::Start(const std::vector<std::string>& argv,
                                                        const std::vector<std::string>& extra_env,
                                                        OnLine on_line) {
  SB_ASSIGN_OR_RETURN(Spawned child, Spawn(argv, extra_env));
  std::unique_ptr<LineStream> s(new LineStream());
  s->pid_ = child.pid;
  s->out_fd_ = child.out_fd;
  s->err_fd_ = child.err_fd;
  s->on_line_ = std::move(on_line);
  s->reader_ = std::thread([p = s.get()] { p->ReadLoop(); });
  return s;
}

void LineStream::ReadLoop() {
  std::string partial;
  bool out_open = true, err_open = true;
  while (out_open) {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_open ? err_fd_ : -1, POLLIN, 0}};
    int n = poll(fds, 2, 200);
    if (n < 0 && errno != EINTR) break;
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR))
      err_open = ReadSome(err_fd_, &err_, kMaxStderrBytes);
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buf[8192];
    ssize_t got = read(out_fd_, buf, sizeof(buf));
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) {
      out_open = false;
      break;
    }
    partial.append(buf, static_cast<size_t>(got));
    size_t start = 0;
    for (size_t nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
      std::string line = partial.substr(start, nl - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      on_line_(line);
      start = nl + 1;
    }
    partial.erase(0, start);
  }
  ended_.store(true);
}

std::string LineStream::Stop() {
  if (stopped_) return err_;
  stopped_ = true;
  KillGroup(pid_);
  if (reader_.joinable()) reader_.join();
  close(out_fd_);
  close(err_fd_);
  return err_;
}

LineStream::~LineStream() { Stop(); }

}  // namespace servebench::telemetry
