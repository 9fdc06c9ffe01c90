// The watchdog and the engine child. After fork() only async-signal-safe calls:
// fork, setpgid, setsid, prctl, sigaction, sigprocmask, dup2, open, close, execve,
// waitpid, kill, nanosleep, write, _exit.
#include "engine/watchdog.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

extern char** environ;

namespace servebench::engine::internal {
namespace {

volatile sig_atomic_t g_stop_requested = 0;

void OnStopSignal(int) { g_stop_requested = 1; }

void SleepMs(long ms) {
  struct timespec ts {
    ms / 1000, (ms % 1000) * 1000000L
  };
  nanosleep(&ts, nullptr);
}

void WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    size -= static_cast<size_t>(n);
  }
}

struct ChildPlan {
  char* const* argv;
  char* const* envp;
  const char* path_env;           // PATH used for the lookup
  const std::string* exec_error;  // message prefix, written to the log on failure
  int log_fd;
  const char* cwd = nullptr;               // chdir here first; null = stay
  const std::string* cwd_error = nullptr;  // message prefix when chdir fails
};

// Writes `prefix`, the decimal `err` and ")\n" to stderr.
void WriteErrno(const std::string& prefix, int err) {
  WriteAll(2, prefix.data(), prefix.size());
  char digits[16];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + err % 10);
    err /= 10;
  } while (err > 0 && n < 15);
  while (n > 0) WriteAll(2, &digits[--n], 1);
  WriteAll(2, ")\n", 2);
}

// Looks argv[0] up on PATH (async-signal-safe, unlike execvpe's allocation-free
// guarantee which glibc does not document) and execs it, in plan.cwd when set.
[[noreturn]] void ExecEngine(const ChildPlan& plan) {
  if (plan.cwd != nullptr && chdir(plan.cwd) != 0) {
    WriteErrno(*plan.cwd_error, errno);
    _exit(127);
  }
  const char* file = plan.argv[0];
  int saved_errno = ENOENT;
  if (std::strchr(file, '/') != nullptr) {
    execve(file, plan.argv, plan.envp);
    saved_errno = errno;
  } else {
    const char* path = plan.path_env;
    char buf[4096];
    while (path != nullptr && *path != '\0') {
      const char* colon = std::strchr(path, ':');
      size_t dir_len = colon != nullptr ? static_cast<size_t>(colon - path) : std::strlen(path);
      size_t file_len = std::strlen(file);
      if (dir_len + 1 + file_len + 1 <= sizeof(buf)) {
        std::memcpy(buf, path, dir_len);
        size_t pos = dir_len;
        if (dir_len == 0) buf[pos++] = '.';
        buf[pos++] = '/';
        std::memcpy(buf + pos, file, file_len + 1);
        execve(buf, plan.argv, plan.envp);
        if (errno != ENOENT) saved_errno = errno;
      }
      if (colon == nullptr) break;
      path = colon + 1;
    }
  }
  WriteErrno(*plan.exec_error, saved_errno);
  _exit(127);
}

void ResetSignals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2}) {
    sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void RunEngineChild(const ChildPlan& plan, pid_t watchdog) {
  ResetSignals();
  setsid();  // own session and process group: the group id is our pid
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != watchdog) _exit(126);  // the watchdog died before prctl
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  dup2(plan.log_fd, 1);
  dup2(plan.log_fd, 2);
  syscall(SYS_close_range, 3, ~0U, 0);  // no servebench descriptors leak into the engine
  ExecEngine(plan);
}

// Reaps children without blocking; returns true when `engine` was among them.
bool ReapSome(pid_t engine, int* engine_status) {
  bool engine_done = false;
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) break;
    if (pid == engine) {
      *engine_status = status;
      engine_done = true;
    }
  }
  return engine_done;
}

// Runs the cleanup command (its own process group, output to the log); returns its
// raw wait status, -1 when there is none. Bounded: SIGKILL after 30 s.
int RunCleanup(const ChildPlan* cleanup) {
  if (cleanup == nullptr) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    ResetSignals();
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(cleanup->log_fd, 1);
    dup2(cleanup->log_fd, 2);
    syscall(SYS_close_range, 3, ~0U, 0);
    ExecEngine(*cleanup);
  }
  if (pid < 0) return -1;
  int status = -1;
  for (int i = 0; i < 3000; ++i) {  // 30 s
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    SleepMs(10);
  }
  kill(-pid, SIGKILL);
  waitpid(pid, &status, 0);
  return status;
}

[[noreturn]] void RunWatchdog(const ChildPlan& plan, const ChildPlan* cleanup, pid_t parent,
                              int status_write_fd, int grace_ms) {
  setpgid(0, 0);  // out of servebench's group: a Ctrl-C there is servebench's to handle
  struct sigaction on_stop {};
  on_stop.sa_handler = OnStopSignal;
  sigemptyset(&on_stop.sa_mask);
  on_stop.sa_flags = 0;  // no SA_RESTART: sleeps end early
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaction(sig, &on_stop, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &dfl, nullptr);
  sigaction(SIGPIPE, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  prctl(PR_SET_CHILD_SUBREAPER, 1);  // orphaned workers come to us, to be reaped
  if (getppid() != parent) g_stop_requested = 1;

  const pid_t self = getpid();
  pid_t engine = fork();
  if (engine == 0) RunEngineChild(plan, self);
  int32_t engine_pid = engine;
  WriteAll(status_write_fd, &engine_pid, sizeof(engine_pid));
  int status = 0;
  if (engine < 0) {
    status = 127 << 8;
  } else {
    bool done = false;
    long term_sent_ms = -1, elapsed_ms = 0;
    while (!done) {
      done = ReapSome(engine, &status);
      if (done) break;
      if (g_stop_requested && term_sent_ms < 0) {
        kill(-engine, SIGTERM);
        term_sent_ms = elapsed_ms;
      }
      if (term_sent_ms >= 0 && elapsed_ms - term_sent_ms >= grace_ms) kill(-engine, SIGKILL);
      SleepMs(10);
      elapsed_ms += 10;
    }
    // The engine is gone; anything left in its group is an orphan of it.
    kill(-engine, SIGKILL);
    for (int i = 0; i < 300; ++i) {  // reap them (bounded: 3 s)
      int ignored = 0;
      ReapSome(engine, &ignored);
      if (kill(-engine, 0) != 0 && errno == ESRCH) break;
      SleepMs(10);
    }
  }
  int32_t report[2] = {status, 0};
  report[1] = RunCleanup(cleanup);
  WriteAll(status_write_fd, report, sizeof(report));  // one write: atomic on a pipe
  _exit(0);
}

}  // namespace

StatusOr<WatchdogLaunch> LaunchWithWatchdog(const std::vector<std::string>& argv,
                                            const std::map<std::string, std::string>& env,
                                            int log_fd, int stop_grace_ms,
                                            const std::vector<std::string>& cleanup_argv,
                                            const std::string& working_dir,
                                            bool inherit_environment) {
  if (argv.empty()) return Status::InvalidArgument("engine command is empty");
  // Everything the children touch is built here, before fork().
  std::vector<std::string> env_storage;
  for (char** e = inherit_environment ? environ : nullptr; e != nullptr && *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    std::string name = eq != nullptr ? std::string(*e, static_cast<size_t>(eq - *e)) : *e;
    if (env.count(name) == 0) env_storage.emplace_back(*e);
  }
  for (const auto& [name, value] : env) env_storage.push_back(name + "=" + value);
  std::string path_env = "/usr/local/bin:/usr/bin:/bin";
  if (auto it = env.find("PATH"); it != env.end()) {
    path_env = it->second;
  } else if (const char* p = std::getenv("PATH"); p != nullptr && inherit_environment) {
    path_env = p;
  }
  std::vector<std::string> argv_storage = argv;
  std::vector<char*> argv_ptrs, env_ptrs;
  for (auto& a : argv_storage) argv_ptrs.push_back(a.data());
  argv_ptrs.push_back(nullptr);
  for (auto& e : env_storage) env_ptrs.push_back(e.data());
  env_ptrs.push_back(nullptr);
  const std::string exec_error = fmt::format("servebench: cannot execute {} (errno ", argv[0]);
  const std::string cwd_error = fmt::format("servebench: cannot enter {} (errno ", working_dir);
  ChildPlan plan{argv_ptrs.data(), env_ptrs.data(),
                 path_env.c_str(), &exec_error,
                 log_fd,           working_dir.empty() ? nullptr : working_dir.c_str(),
                 &cwd_error};
  std::vector<std::string> cleanup_storage = cleanup_argv;
  std::vector<char*> cleanup_ptrs;
  for (auto& a : cleanup_storage) cleanup_ptrs.push_back(a.data());
  cleanup_ptrs.push_back(nullptr);
  const std::string cleanup_error =
      cleanup_argv.empty()
          ? ""
          : fmt::format("servebench: cannot execute cleanup {} (errno ", cleanup_argv[0]);
  ChildPlan cleanup_plan{cleanup_ptrs.data(), env_ptrs.data(), path_env.c_str(), &cleanup_error,
                         log_fd};

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return Status::Internal(fmt::format("pipe2 failed: {}", std::strerror(errno)));
  }
  const pid_t parent = getpid();
  pid_t watchdog = fork();
  if (watchdog < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    return Status::Unavailable(
        fmt::format("fork failed: {} (too many processes?)", std::strerror(err)));
  }
  if (watchdog == 0) {
    close(fds[0]);
    RunWatchdog(plan, cleanup_argv.empty() ? nullptr : &cleanup_plan, parent, fds[1],
                stop_grace_ms);
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return WatchdogLaunch{watchdog, fds[0]};
}

}  // namespace servebench::engine::internal
