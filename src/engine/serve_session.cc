#include "engine/serve_session.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "engine/adapter.h"
#include "net/http_fetch.h"

namespace servebench::engine {
namespace {

constexpr int64_t kPollMs = 100;
constexpr int64_t kProbeMs = 1000;
// How long Diagnose waits for a peer's log to name the cause (srun relays output late).
constexpr int64_t kLogSettleMs = 3000;

// True when something accepts a TCP connection at host:port within timeout_ms.
bool Accepts(const std::string& host, int port, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return false;
  bool ok = false;
  for (addrinfo* a = res; a != nullptr && !ok; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      ok = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int err = 0;
      socklen_t len = sizeof err;
      ok = poll(&p, 1, timeout_ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
           err == 0;
    }
    close(fd);
  }
  freeaddrinfo(res);
  return ok;
}

// GET path on host:port on a connection of its own; any HTTP status is a reply.
StatusOr<net::HttpReply> Get(const std::string& host, int port, const std::string& path) {
  return net::HttpFetch(net::Url{false, host, std::to_string(port), ""}, path, "",
                        static_cast<double>(kProbeMs) / 1000.0);
}

// The class ClassifyFailure gives a situation when no signature matches.
FailureClass SituationClass(Situation situation, const SignatureCatalog& catalog) {
  return ClassifyFailure("", situation, "", catalog).failure_class;
}

}  // namespace

struct ServeSession::Member {
  const SessionProcess* process = nullptr;
  std::unique_ptr<Supervisor> supervisor;
  std::string log_path;
  bool ready = false;
  int64_t exit_seq = 0;  // order in which exits were seen; 0 while running
  int64_t started_ns = 0;
  ReadyInfo ready_info;
};

ServeSession::ServeSession(SessionPlan plan, ServeSessionOptions options)
    : plan_(std::move(plan)), options_(std::move(options)) {}

ServeSession::~ServeSession() {
  Status s = Stop();
  if (!s.ok()) Log(LogLevel::kWarning, "{}", s.message());
}

std::unique_ptr<ServeSession> ServeSession::Start(const SessionPlan& plan,
                                                  const ServeSessionOptions& options,
                                                  SessionFailure* failure) {
  std::unique_ptr<ServeSession> s(new ServeSession(plan, options));
  s->signatures_ = options.signatures;
  // Simulated processes stamp simulated time (docs/simulator.md "Roles"): one origin
  // for the whole session makes their stamps one clock.
  s->clock_origin_ns_ = MonotonicNowNs();
  if (s->signatures_ == nullptr) {
    auto catalog = DefaultEngineCatalog();
    if (!catalog.ok()) {
      *failure = {"session",
                  "",
                  {failure_class::kInfraStartFailed, catalog.status().message(), "", 0, false, ""}};
      return nullptr;
    }
    s->signatures_ = &(*catalog)->signatures;
  }
  for (const auto& p : s->plan_.processes) {
    auto m = std::make_unique<Member>();
    m->process = &p;
    m->log_path = fmt::format("{}/{}.log", options.log_dir, p.Name());
    s->members_.push_back(std::move(m));
  }
  // Groups in start order: services, workers, the router (session_plan.h).
  size_t first = 0;
  for (ProcessKind kind : {ProcessKind::kService, ProcessKind::kWorker, ProcessKind::kRouter}) {
    size_t last = first;
    while (last < s->members_.size() && s->members_[last]->process->kind == kind) ++last;
    for (size_t i = first; i < last; ++i) {
      Status launched = s->LaunchOne(i);
      if (!launched.ok()) {
        const SessionProcess& p = *s->members_[i]->process;
        *failure = {p.Name(),
                    p.role,
                    {failure_class::kInfraStartFailed,
                     fmt::format("{}: {}", p.Name(), launched.message()), "", 0, false, ""}};
        (void)s->Stop();
        return nullptr;
      }
    }
    if (auto f = s->WaitReady(first, last)) {
      *failure = *f;
      (void)s->Stop();
      return nullptr;
    }
    first = last;
  }
  for (const auto& m : s->members_) {
    const SessionProcess& p = *m->process;
    s->info_.push_back({p.Name(), p.role, m->ready_info.engine_version, m->ready_info.ready_after_s,
                        m->log_path, m->supervisor->engine_pid()});
  }
  s->models_json_ = s->members_.back()->ready_info.models_json;
  return s;
}

Status ServeSession::LaunchOne(size_t index) {
  Member& m = *members_[index];
  SessionProcess process = *m.process;
  if (plan_.stack == "sim") {
    process.command.env["SERVEBENCH_SIM_CLOCK_ORIGIN_NS"] = std::to_string(clock_origin_ns_);
  }
  ServerCommand command = process.command;
  if (options_.place) {
    SB_ASSIGN_OR_RETURN(command, options_.place(process, plan_));
  }
  SupervisorOptions o;
  o.log_path = m.log_path;
  o.echo = options_.echo;
  o.echo_prefix = "[" + m.process->Name() + "] ";
  o.stop_grace_s = options_.stop_grace_s;
  o.readiness_timeout_s = options_.readiness_timeout_s;
  o.signatures = signatures_;
  m.started_ns = MonotonicNowNs();
  SB_ASSIGN_OR_RETURN(m.supervisor, Supervisor::Start(command, o));
  return Status::Ok();
}

std::optional<SessionFailure> ServeSession::WaitReady(size_t first, size_t last) {
  for (;;) {
    bool all = true;
    for (size_t i = first; i < last; ++i) {
      Member& m = *members_[i];
      if (m.ready) continue;
      const SessionProcess& p = *m.process;
      if (!m.supervisor->IsAlive()) {
        m.exit_seq = ++exit_seq_;
        return Classify(
            i, Situation::kDiedBeforeReady,
            fmt::format(
                "{} {} before it became ready", p.Name(),
                m.supervisor->exit_info() ? m.supervisor->exit_info()->Describe() : "ended"));
      }
      const double limit_s = options_.readiness_timeout_s > 0    ? options_.readiness_timeout_s
                             : p.command.readiness_timeout_s > 0 ? p.command.readiness_timeout_s
                                                                 : 1800;
      const std::string& host = p.command.host;
      const int port = p.command.port;
      switch (p.readiness) {
        case ProcessReadiness::kTcp:
          m.ready = Accepts(host, port, static_cast<int>(kProbeMs));
          break;
        case ProcessReadiness::kHealth: {
          auto r = Get(host, port, "/health");
          m.ready = r.ok() && r->status == 200;
          break;
        }
        case ProcessReadiness::kHttp: {
          auto r = Get(host, port, "/health");
          if (r.ok() && r->status == 200) {
            // Healthy: the supervisor's own probe reads /v1/models and /version.
            auto ready = m.supervisor->WaitUntilReady();
            if (!ready.ok()) {
              m.exit_seq = m.supervisor->IsAlive() ? 0 : ++exit_seq_;
              return Classify(
                  i, m.exit_seq > 0 ? Situation::kDiedBeforeReady : Situation::kReadinessTimeout,
                  fmt::format("{}: {}", p.Name(), ready.status().message()));
            }
            m.ready_info = *ready;
            m.ready = true;
          }
          break;
        }
        case ProcessReadiness::kLeader: {
          // Ready with the replica's leader (same role and replica, node rank 0).
          for (const auto& other : members_) {
            const SessionProcess& q = *other->process;
            if (q.kind == p.kind && q.role == p.role && q.replica == p.replica &&
                q.node_rank == 0) {
              m.ready = other->ready;
            }
          }
          break;
        }
      }
      if (!m.ready && (MonotonicNowNs() - m.started_ns) / 1e9 > limit_s) {
        return Classify(i, Situation::kReadinessTimeout,
                        fmt::format("{} not ready after {} s (on {}:{})", p.Name(),
                                    FormatDecimal(limit_s), host, port));
      }
      all = all && m.ready;
    }
    if (all) return std::nullopt;
    // A member exiting ends the wait at once: poll its report while sleeping.
    std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
  }
}

SessionFailure ServeSession::Classify(size_t index, Situation situation, const std::string& what) {
  Member& m = *members_[index];
  const SessionProcess& p = *m.process;
  EngineFailure f = ClassifyLogFile(m.log_path, situation, what, *signatures_);
  const FailureClass fallback = SituationClass(situation, *signatures_);
  if (f.failure_class == fallback) {
    // Its own log says nothing specific: the first signature in the prefill, decode,
    // then router logs (disagg.md §4) names the cause.
    for (const char* role : {"prefill", "decode", "aggregated", "router"}) {
      bool found = false;
      for (size_t j = 0; j < members_.size() && !found; ++j) {
        const Member& o = *members_[j];
        if (j == index || o.process->role != role || o.supervisor == nullptr) continue;
        EngineFailure g = ClassifyLogFile(o.log_path, situation, what, *signatures_);
        if (g.failure_class != fallback) {
          g.summary +=
              fmt::format(" (the signature is in {}'s log, {})", o.process->Name(), o.log_path);
          f = g;
          found = true;
        }
      }
      if (found) break;
    }
  }
  std::vector<std::string> hosts;
  for (int n : p.nodes) hosts.push_back(plan_.nodes[static_cast<size_t>(n)]);
  std::string where;
  for (const auto& h : hosts) where += (where.empty() ? "" : ",") + h;
  f.summary = fmt::format("{} ({} on node {}): {}", p.Name(), p.role, where, f.summary);
  return {p.Name(), p.role, f};
}

std::string ServeSession::base_url() const {
  const ServerCommand& c = plan_.entry().command;
  return fmt::format("http://{}:{}", c.host, c.port);
}

std::string ServeSession::engine_version() const {
  for (const char* role : {"decode", "prefill", "aggregated"})
    for (const auto& i : info_)
      if (i.role == role && !i.engine_version.empty()) return i.engine_version;
  return "";
}

bool ServeSession::IsAlive() {
  bool all = true;
  for (auto& m : members_) {
    if (m->supervisor == nullptr) continue;
    if (!m->supervisor->IsAlive()) {
      if (m->exit_seq == 0) m->exit_seq = ++exit_seq_;
      all = false;
    }
  }
  return all;
}

bool ServeSession::ExitsWithin(int64_t timeout_ms) {
  const int64_t deadline = MonotonicNowNs() + timeout_ms * 1'000'000;
  for (;;) {
    if (!IsAlive()) return true;
    if (MonotonicNowNs() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int ServeSession::FirstExited() {
  IsAlive();
  int best = -1;
  for (size_t i = 0; i < members_.size(); ++i) {
    const int64_t seq = members_[i]->exit_seq;
    if (seq > 0 && (best < 0 || seq < members_[static_cast<size_t>(best)]->exit_seq))
      best = static_cast<int>(i);
  }
  return best;
}

SessionFailure ServeSession::Diagnose(Situation situation) {
  const int i = FirstExited();
  if (i < 0) {
    return {"session",
            "",
            {SituationClass(situation, *signatures_), "every process of the session still runs", "",
             0, false, ""}};
  }
  const Member& m = *members_[static_cast<size_t>(i)];
  const std::string how =
      m.supervisor->exit_info() ? m.supervisor->exit_info()->Describe() : "ended";
  const std::string what = fmt::format("{} {} while serving", m.process->Name(), how);
  SessionFailure f = Classify(static_cast<size_t>(i), situation, what);
  // The peer that saw the cause (the router seeing a decode stream break) may log it
  // a moment after the process died, later still through srun's output relay: when no
  // log names a cause yet, read them again for a short while before settling for the
  // situation's class.
  const FailureClass fallback = SituationClass(situation, *signatures_);
  for (int64_t waited_ms = 0; f.failure.failure_class == fallback && waited_ms < kLogSettleMs;
       waited_ms += kPollMs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    f = Classify(static_cast<size_t>(i), situation, what);
  }
  return f;
}

Status ServeSession::Stop() {
  if (stopped_) return Status::Ok();
  stopped_ = true;
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    if ((*it)->supervisor != nullptr) (void)(*it)->supervisor->Stop();
  }
  return Status::Ok();
}

}  // namespace servebench::engine
