// ServeSession: starts, watches and stops every process of a SessionPlan — a serve
// session of several processes (disaggregated prefill/decode, or aggregated workers
// behind a router) — so that the client sees one server: the router.
//
// Start order (disagg.md §2.2): services (etcd, NATS), each until its port accepts a
// connection; then all workers at once, each until it is ready as its plan says
// (GET /health, then /v1/models and /version for the engine's version; Dynamo
// workers /health on their system port; followers with their leader); then the
// router, until its /health and /v1/models answer. A process that exits, or the
// deadline passing, stops the start: the failure is classified by role (below) and
// every process already started is stopped.
//
// Each process has its own engine::Supervisor (own process group, own watchdog, log
// <log_dir>/<name>.log), so every process of the session dies with servebench, even
// under SIGKILL; a process placed on another node runs under `srun` there (the
// `place` hook), whose step Slurm tears down with it. Stop() goes in reverse start
// order: router, workers, services.
//
// Failure by role: Diagnose() names the process that ended first and classifies its
// log with the signature catalogue (data/engine/failure_signatures.yaml); when its
// log matches no signature, the prefill, decode and router logs are scanned in that
// order (disagg.md §4) and the first signature found is used, saying whose log it
// came from.
// Thread-safety: one thread drives a session (as Supervisor); Start() from a thread
// that outlives it (PR_SET_PDEATHSIG, supervisor.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/failure_classifier.h"
#include "engine/session_plan.h"
#include "engine/supervisor.h"

namespace servebench::engine {

struct ServeSessionOptions {
  std::string log_dir;  // required: one log per process, <log_dir>/<name>.log
  bool echo = false;    // copy each process's log lines to stderr, prefixed "[<name>] "
  double stop_grace_s = 10;
  // Overrides every process's readiness deadline when > 0 (--readiness-timeout, tests).
  double readiness_timeout_s = 0;
  const SignatureCatalog* signatures = nullptr;  // null = DefaultEngineCatalog()'s
  // The command that runs `process` where the plan places it (Slurm: an `srun` step
  // on its nodes). Null: every process runs on this machine as planned.
  std::function<StatusOr<ServerCommand>(const SessionProcess& process, const SessionPlan& plan)>
      place;
};

// What ended a session, by role.
struct SessionFailure {
  std::string process;  // "decode[1]": the process that ended first or was not ready
  std::string role;     // "decode"
  // Class and one line; the summary starts with the process and its node.
  EngineFailure failure;
};

// One process once the session is ready.
struct ProcessInfo {
  std::string name, role;
  std::string engine_version;  // GET /version of workers with an API; "" otherwise
  double ready_after_s = 0;
  std::string log_path;
  pid_t pid = -1;
};

class ServeSession {
 public:
  // Starts every process in order and waits for each to be ready. On failure returns
  // nullptr, with `failure` classified by role and everything started stopped.
  static std::unique_ptr<ServeSession> Start(const SessionPlan& plan,
                                             const ServeSessionOptions& options,
                                             SessionFailure* failure);
  ~ServeSession();  // Stop()
  ServeSession(const ServeSession&) = delete;
  ServeSession& operator=(const ServeSession&) = delete;

  // The router's URL: what the client targets.
  std::string base_url() const;
  // The router's GET /v1/models body at readiness.
  const std::string& models_json() const { return models_json_; }
  // The engine version the workers report (decode's, else prefill's, else
  // aggregated's); "" when none answers /version.
  std::string engine_version() const;
  const std::vector<ProcessInfo>& processes() const { return info_; }
  const SessionPlan& plan() const { return plan_; }

  // True while every process runs. Non-blocking.
  bool IsAlive();
  // True if some process exits within `timeout_ms` (or already has).
  bool ExitsWithin(int64_t timeout_ms);
  // Classifies why the session broke (see top of file).
  SessionFailure Diagnose(Situation situation);
  // Stops every process, router first. Idempotent.
  Status Stop();

 private:
  struct Member;
  ServeSession(SessionPlan plan, ServeSessionOptions options);
  Status LaunchOne(size_t index);
  // Waits until members [first, last) are ready; the failure when one is not.
  std::optional<SessionFailure> WaitReady(size_t first, size_t last);
  SessionFailure Classify(size_t index, Situation situation, const std::string& what);
  // Index of the member that was seen to exit first; -1 when all run.
  int FirstExited();

  SessionPlan plan_;
  ServeSessionOptions options_;
  const SignatureCatalog* signatures_ = nullptr;
  std::vector<std::unique_ptr<Member>> members_;
  std::vector<ProcessInfo> info_;
  std::string models_json_;
  int64_t exit_seq_ = 0;
  int64_t clock_origin_ns_ = 0;  // CLOCK_MONOTONIC ns of a sim session's simulated time 0
  bool stopped_ = false;
};

}  // namespace servebench::engine
