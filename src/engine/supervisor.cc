#include "engine/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstring>
#include <filesystem>

#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/log.h"
#include "engine/adapter.h"
#include "engine/engine_registry.h"
#include "engine/exit_facts.h"
#include "engine/watchdog.h"
#include "net/http_fetch.h"
#include "net/transport.h"

namespace servebench::engine {
namespace {

constexpr int64_t kProbeTimeoutMs = 2000;

double SecondsSince(int64_t start_ns) { return (MonotonicNowNs() - start_ns) / 1e9; }

// The string field `key` of a JSON object body, or "".
std::string StringField(const std::string& body, const char* key) {
  try {
    boost::json::value v = boost::json::parse(body);
    if (v.is_object()) {
      const auto& o = v.as_object();
      if (auto it = o.find(key); it != o.end() && it->value().is_string()) {
        return std::string(it->value().as_string());
      }
    }
  } catch (const std::exception&) {
  }
  return "";
}

// One probe: GET `path` on the engine on a connection of its own, within timeout_ms.
// Any HTTP status is a reply.
StatusOr<net::HttpReply> Probe(const ServerCommand& command, const net::TlsOptions& tls,
                               const std::string& path, int64_t timeout_ms) {
  const net::Url url{command.tls, command.host, std::to_string(command.port), ""};
  return net::HttpFetch(url, path, "", static_cast<double>(timeout_ms) / 1000.0, {}, tls);
}

// The engine's version: vLLM, TensorRT-LLM and the sim answer GET /version
// {"version"}; llama.cpp has /props {"build_info"}; SGLang /get_server_info {"version"}.
std::string FetchEngineVersion(const ServerCommand& command, const net::TlsOptions& tls) {
  static const std::pair<const char*, const char*> kSources[] = {
      {"/version", "version"}, {"/props", "build_info"}, {"/get_server_info", "version"}};
  for (const auto& [path, key] : kSources) {
    auto response = Probe(command, tls, path, kProbeTimeoutMs);
    if (!response.ok() || response->status != 200) continue;
    std::string version = StringField(response->body, key);
    if (!version.empty()) return version;
  }
  return "";
}

// Waits until the log's size has stayed the same for kQuietMs, at most kMaxWaitMs;
// true if it grew meanwhile (so a second read may find what the first did not).
bool WaitForQuietLog(const std::string& path) {
  constexpr int64_t kQuietMs = 200;
  constexpr int64_t kMaxWaitMs = 2000;
  constexpr int64_t kPollMs = 50;
  auto size_now = [&path] {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    return ec ? std::uintmax_t{0} : size;
  };
  const std::uintmax_t first = size_now();
  std::uintmax_t last = first;
  int64_t still_ms = 0;
  for (int64_t waited_ms = 0; waited_ms < kMaxWaitMs && still_ms < kQuietMs; waited_ms += kPollMs) {
    ::usleep(kPollMs * 1000);
    const std::uintmax_t now = size_now();
    still_ms = now == last ? still_ms + kPollMs : 0;
    last = now;
  }
  return last != first;
}

}  // namespace

std::string ExitInfo::Describe() const {
  if (signal > 0) {
    const char* name = sigabbrev_np(signal);
    return fmt::format("killed by signal {} (SIG{})", signal, name != nullptr ? name : "?");
  }
  if (exit_code >= 0) return fmt::format("exited with code {}", exit_code);
  return "ended (status unknown: its watchdog was killed)";
}

Supervisor::Supervisor(ServerCommand command, SupervisorOptions options)
    : command_(std::move(command)), options_(std::move(options)) {}

Supervisor::~Supervisor() {
  Status s = Stop();
  if (!s.ok()) Log(LogLevel::kWarning, "{}", s.message());
}

StatusOr<std::unique_ptr<Supervisor>> Supervisor::Start(const ServerCommand& command,
                                                        const SupervisorOptions& options) {
  std::unique_ptr<Supervisor> sup(new Supervisor(command, options));
  sup->signatures_ = options.signatures;
  if (sup->signatures_ == nullptr) {
    SB_ASSIGN_OR_RETURN(const EngineCatalog* catalog, DefaultEngineCatalog());
    sup->signatures_ = &catalog->signatures;
  }
  Status launched = sup->Launch();
  if (!launched.ok()) {
    EngineFailure failure;
    failure.failure_class = DefaultClass(Situation::kStartFailed);
    if (auto it = sup->signatures_->situations.find("start_failed");
        it != sup->signatures_->situations.end()) {
      failure.failure_class = it->second;
    }
    failure.summary = launched.message();
    sup->failure_ = failure;
    sup->stopped_ = true;
    return Status(launched.code(), failure.summary);
  }
  return sup;
}

Status Supervisor::Launch() {
  if (command_.argv.empty()) return Status::InvalidArgument("engine command is empty");
  if (options_.log_path.empty())
    return Status::InvalidArgument("SupervisorOptions.log_path is empty");
  if (command_.tls) {  // probes could never succeed: say so before anything starts
    SB_RETURN_IF_ERROR(net::MakeTlsContext(options_.tls).status());
  }
  for (const auto& file : command_.files) {
    Status written = WriteFileAtomically(file.path, file.contents);
    if (!written.ok()) return written.WithContext("engine config file");
  }
  std::error_code ec;
  if (!command_.working_dir.empty()) std::filesystem::create_directories(command_.working_dir, ec);
  const auto parent = std::filesystem::path(options_.log_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  int log_fd =
      open(options_.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0644);
  if (log_fd < 0) {
    return Status::DataLoss(
        fmt::format("cannot open engine log {}: {}", options_.log_path, std::strerror(errno)));
  }
  start_ns_ = MonotonicNowNs();
  auto launch = internal::LaunchWithWatchdog(
      command_.argv, command_.env, log_fd, static_cast<int>(options_.stop_grace_s * 1000),
      command_.cleanup_argv, command_.working_dir, command_.inherit_environment);
  close(log_fd);
  if (!launch.ok()) return launch.status();
  watchdog_pid_ = launch->watchdog_pid;
  status_fd_ = launch->status_fd;
  // The watchdog reports the engine's pid at once.
  pollfd pfd{status_fd_, POLLIN, 0};
  int32_t pid = -1;
  if (poll(&pfd, 1, 5000) > 0 && read(status_fd_, &pid, sizeof(pid)) == sizeof(pid) && pid > 0) {
    engine_pid_ = pid;
  } else {
    kill(watchdog_pid_, SIGKILL);
    waitpid(watchdog_pid_, nullptr, 0);
    close(status_fd_);
    status_fd_ = -1;
    return Status::Unavailable("the engine watchdog did not report the engine's pid within 5 s");
  }
  registry_slot_ = internal::RegisterEngine(this, watchdog_pid_, engine_pid_);
  if (options_.echo) echo_thread_ = std::thread([this] { EchoLoop(); });
  Log(LogLevel::kDebug, "engine {} started: pid {}, log {}", command_.engine, engine_pid_,
      options_.log_path);
  return Status::Ok();
}

void Supervisor::PollExit(int64_t timeout_ms) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (exit_.has_value() || status_fd_ < 0) return;
  pollfd pfd{status_fd_, POLLIN, 0};
  int r = poll(&pfd, 1, static_cast<int>(std::max<int64_t>(0, timeout_ms)));
  if (r <= 0) return;
  int32_t report[2] = {0, -1};  // engine wait status, cleanup wait status
  ssize_t n = read(status_fd_, report, sizeof(report));
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  const int32_t raw = report[0];
  ExitInfo info;
  if (n == sizeof(report)) {
    if (WIFEXITED(raw)) info.exit_code = WEXITSTATUS(raw);
    if (WIFSIGNALED(raw)) info.signal = WTERMSIG(raw);
    if (report[1] != -1) {
      info.cleanup_exit_code =
          WIFEXITED(report[1]) ? WEXITSTATUS(report[1]) : 128 + WTERMSIG(report[1]);
    }
  }
  exit_ = info;
  waitpid(watchdog_pid_, nullptr, 0);
  // EOF without a status: the watchdog itself was killed (the engine then got
  // SIGKILL through PDEATHSIG); finish its job on the engine's group. With a status
  // the group is already empty and its id may be reused: leave it alone.
  if (n != sizeof(report)) kill(-engine_pid_, SIGKILL);
  close(status_fd_);
  status_fd_ = -1;
  internal::UnregisterEngine(registry_slot_);
  registry_slot_ = -1;
}

bool Supervisor::IsAlive() {
  PollExit(0);
  return !exit_.has_value() && status_fd_ >= 0;
}

std::optional<ExitInfo> Supervisor::WaitForExit(int64_t timeout_ms) {
  PollExit(timeout_ms);
  return exit_;
}

double Supervisor::ReadinessDeadlineS() const {
  if (options_.readiness_timeout_s > 0) return options_.readiness_timeout_s;
  return command_.readiness_timeout_s > 0 ? command_.readiness_timeout_s : 1800;
}

EngineFailure Supervisor::Classify(Situation situation) {
  std::string what;
  switch (situation) {
    case Situation::kDiedBeforeReady:
      what = fmt::format("engine {} before it became ready", exit_ ? exit_->Describe() : "ended");
      break;
    case Situation::kReadinessTimeout:
      what = fmt::format("engine not ready after {} s (GET /health then /v1/models on {})",
                         FormatDecimal(ReadinessDeadlineS()), BaseUrl(command_));
      break;
    case Situation::kDiedDuringRun:
      what = fmt::format("engine {} while serving", exit_ ? exit_->Describe() : "died");
      break;
    case Situation::kStartFailed:
      what = "engine could not be started";
      break;
    case Situation::kRequestsFailed:
      what = "requests failed while the engine kept serving";
      break;
  }
  failure_ = ClassifyLogFile(options_.log_path, situation, what, *signatures_);
  // A serving engine may log a refusal after it answered it (llama-server's logger is
  // a thread of its own): when nothing matched, read once more after the log is still.
  if (situation == Situation::kRequestsFailed && !failure_->signature_matched &&
      WaitForQuietLog(options_.log_path)) {
    failure_ = ClassifyLogFile(options_.log_path, situation, what, *signatures_);
  }
  // An engine may exit before writing its last lines (exit_facts.h): when the log
  // names no cause, what the host shows does.
  if (situation == Situation::kDiedBeforeReady && !failure_->signature_matched) {
    if (std::optional<ExitFact> fact = FindExitFact(command_)) {
      auto cls = signatures_->situations.find(fact->situation);
      if (cls != signatures_->situations.end()) {
        failure_->failure_class = cls->second;
        failure_->summary = fmt::format("{}; {} (the log names no cause)", what, fact->detail);
      }
    }
  }
  return *failure_;
}

StatusOr<ReadyInfo> Supervisor::WaitUntilReady() {
  const double deadline_s = ReadinessDeadlineS();
  const int64_t deadline_ns = start_ns_ + static_cast<int64_t>(deadline_s * 1e9);
  const int64_t poll_ms = std::max(10, command_.readiness_poll_ms);
  bool health_ok = false;
  for (;;) {
    PollExit(0);
    if (exit_.has_value()) {
      return Status::Unavailable(Classify(Situation::kDiedBeforeReady).summary);
    }
    const int64_t remaining_ms = (deadline_ns - MonotonicNowNs()) / 1000000;
    if (remaining_ms <= 0) {
      return Status::DeadlineExceeded(Classify(Situation::kReadinessTimeout).summary);
    }
    const int64_t probe_ms = std::min(kProbeTimeoutMs, remaining_ms);
    if (!health_ok) {
      auto health = Probe(command_, options_.tls, "/health", probe_ms);
      health_ok = health.ok() && health->status == 200;
    }
    if (health_ok) {
      auto models = Probe(command_, options_.tls, "/v1/models", probe_ms);
      if (models.ok() && models->status == 200) {
        ReadyInfo info;
        info.ready_after_s = SecondsSince(start_ns_);
        info.models_json = models->body;
        info.engine_version = FetchEngineVersion(command_, options_.tls);
        return info;
      }
    }
    // Sleep until the next probe, waking at once if the engine exits.
    PollExit(std::min(poll_ms, std::max<int64_t>(0, (deadline_ns - MonotonicNowNs()) / 1000000)));
  }
}

Status Supervisor::Stop() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (stopped_) return Status::Ok();
  stopped_ = true;
  PollExit(0);
  if (!exit_.has_value() && watchdog_pid_ > 0) {
    kill(watchdog_pid_,
         SIGTERM);  // the watchdog sends SIGTERM to the group, SIGKILL after the grace
    PollExit(static_cast<int64_t>(options_.stop_grace_s * 1000) + 5000);
    if (!exit_.has_value()) {  // the watchdog is stuck: do its job
      kill(-engine_pid_, SIGKILL);
      kill(watchdog_pid_, SIGKILL);
      PollExit(5000);
    }
  }
  echo_stop_ = true;
  if (echo_thread_.joinable()) echo_thread_.join();
  if (exit_.has_value() && exit_->cleanup_exit_code > 0) {
    // `docker rm -f` of a container that --rm already removed fails too: say it, do not fail.
    Log(LogLevel::kDebug, "engine cleanup `{}` exited with {} (see {})",
        command_.cleanup_argv.front(), exit_->cleanup_exit_code, options_.log_path);
  }
  return Status::Ok();
}

void Supervisor::EchoLoop() {
  int fd = -1;
  std::string partial;
  char buf[8192];
  for (;;) {
    const bool last = echo_stop_.load();
    if (fd < 0) fd = open(options_.log_path.c_str(), O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : 0;
    if (n > 0) {
      partial.append(buf, static_cast<size_t>(n));
      size_t pos;
      while ((pos = partial.find('\n')) != std::string::npos) {
        std::string line = options_.echo_prefix + partial.substr(0, pos + 1);
        (void)!write(2, line.data(), line.size());
        partial.erase(0, pos + 1);
      }
      continue;
    }
    if (last) break;
    usleep(100000);
  }
  if (!partial.empty()) {
    std::string line = options_.echo_prefix + partial + "\n";
    (void)!write(2, line.data(), line.size());
  }
  if (fd >= 0) close(fd);
}

}  // namespace servebench::engine
