// Supervisor: starts one engine process, waits for readiness, notices when it dies,
// classifies why, and stops it so that nothing it started is left behind.
//
// Process tree (docs/engines.md, "Supervision"):
//   servebench ── watchdog (own process group; dies with servebench's thread: PDEATHSIG)
//                   └─ engine (setsid: its own session and process group E; the
//                      watchdog is its child subreaper)
//                        └─ workers (group E)
// The watchdog is a fork of servebench that runs no servebench code, only system
// calls: it waits for the engine, and when told to stop (Stop(), or servebench's
// death) sends SIGTERM to group E, SIGKILL after the grace period, then SIGKILL to
// whatever is left in E and reaps it, then runs the command's cleanup (docker rm -f).
// So even `kill -9 servebench` leaves no engine.
// Caveat: PR_SET_PDEATHSIG fires when the THREAD that called Start() exits; call
// Start() from a thread that outlives the engine (e.g. the run's main thread).
//
// Output: the engine's stdout and stderr go to the log file (optionally echoed to
// servebench's stderr line by line with a prefix, read back from the file).
// Thread-safety: one thread drives a Supervisor; StopAllEngines() may be called
// from another thread while it does (Stop() and exit polling are serialised), but
// not while a Supervisor is being destroyed; KillAllEnginesFromSignalHandler() may
// be called from a signal handler at any time.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/status.h"
#include "engine/engine_catalog.h"
#include "engine/failure_classifier.h"
#include "engine/server_command.h"
#include "net/tls_options.h"

namespace servebench::engine {

struct SupervisorOptions {
  std::string log_path;      // required; parent folders are created; truncated
  bool echo = false;         // also copy each log line to stderr ...
  std::string echo_prefix;   // ... after this prefix, e.g. "[vllm] "
  double stop_grace_s = 10;  // SIGTERM to the group, then SIGKILL after this
  // Overrides the command's readiness deadline when > 0 (tests).
  double readiness_timeout_s = 0;
  // Signatures for classification; null = DefaultEngineCatalog()'s.
  const SignatureCatalog* signatures = nullptr;
  // How the certificate of an engine that serves https (ServerCommand::tls) is
  // verified by the readiness probes.
  net::TlsOptions tls;
};

struct ExitInfo {
  int exit_code = -1;          // >= 0 when the engine exited by itself
  int signal = 0;              // > 0 when a signal ended it
  int cleanup_exit_code = -1;  // the cleanup command's exit code; -1 when none ran
  // "exited with code 1" / "killed by signal 9 (SIGKILL)" / "ended (status unknown)".
  std::string Describe() const;
};

struct ReadyInfo {
  double ready_after_s = 0;  // from Start() to /v1/models answering 200
  // GET /version "version" (vLLM, TensorRT-LLM, sim), else /props "build_info"
  // (llama.cpp), else /get_server_info "version" (SGLang); empty if none answers.
  std::string engine_version;
  std::string models_json;  // body of GET /v1/models
};

class Supervisor {
 public:
  // Writes the command's config files, opens the log, starts the engine. Fails
  // (with failure() set, class infra.start_failed) when a file cannot be written, the
  // process cannot be forked or an https engine's TLS options cannot be used; an engine binary that
  // does not exist starts, logs "servebench: cannot execute ..." and exits 127 (classified
  // infra.command_not_found).
  static StatusOr<std::unique_ptr<Supervisor>> Start(const ServerCommand& command,
                                                     const SupervisorOptions& options);
  ~Supervisor();  // Stop()
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Polls GET /health, then GET /v1/models, every readiness_poll_ms until both
  // answer 200 or the deadline passes; an exit is noticed at once (no waiting out
  // the poll gap). Then reads GET /version. On failure returns Unavailable (exited)
  // or DeadlineExceeded (timeout) whose message is the failure summary, and sets
  // failure(). The engine is left running on timeout: call Stop().
  StatusOr<ReadyInfo> WaitUntilReady();

  // True while the engine process runs. Non-blocking.
  bool IsAlive();
  // Waits up to `timeout_ms` for the engine to exit; its exit, or nullopt if alive.
  std::optional<ExitInfo> WaitForExit(int64_t timeout_ms);
  // The exit seen so far (nullopt while alive or unobserved).
  const std::optional<ExitInfo>& exit_info() const { return exit_; }

  // Classifies the log now, e.g. kDiedDuringRun after IsAlive() turned false
  // mid-point. Also stores it as failure(). For kRequestsFailed with no signature
  // found it reads again once the log has been still for 200 ms (at most 2 s more):
  // an engine may answer a refusal before its logger writes the line.
  EngineFailure Classify(Situation situation);
  const std::optional<EngineFailure>& failure() const { return failure_; }

  // SIGTERM to the engine's group, SIGKILL after stop_grace_s, reaps everything;
  // the watchdog then runs the command's cleanup (docker rm -f) — whenever the
  // engine ends, even after servebench died. Idempotent; the engine is always gone
  // afterwards (the Status is for future cleanup checks and is OK today).
  Status Stop();

  pid_t engine_pid() const { return engine_pid_; }  // also its process group id
  pid_t watchdog_pid() const { return watchdog_pid_; }
  const std::string& log_path() const { return options_.log_path; }
  const ServerCommand& command() const { return command_; }

 private:
  Supervisor(ServerCommand command, SupervisorOptions options);
  Status Launch();
  // Reads the watchdog's report if it arrived within timeout_ms; reaps it.
  void PollExit(int64_t timeout_ms);
  void EchoLoop();
  double ReadinessDeadlineS() const;

  // Serialises Stop() and exit polling between the owner and StopAllEngines().
  std::recursive_mutex mu_;
  ServerCommand command_;
  SupervisorOptions options_;
  const SignatureCatalog* signatures_ = nullptr;
  pid_t watchdog_pid_ = -1;
  pid_t engine_pid_ = -1;
  int status_fd_ = -1;  // read end: engine pid, then its wait status, from the watchdog
  int64_t start_ns_ = 0;
  bool stopped_ = false;
  int registry_slot_ = -1;
  std::optional<ExitInfo> exit_;
  std::optional<EngineFailure> failure_;
  std::atomic<bool> echo_stop_{false};
  std::thread echo_thread_;
};

// Stops every live engine (graceful, as Stop()). For the run's shutdown path.
void StopAllEngines();

// SIGKILLs every live engine's process group and watchdog. Async-signal-safe: call
// it from a SIGINT/SIGTERM handler.
void KillAllEnginesFromSignalHandler();

// Installs SIGINT/SIGTERM/SIGHUP handlers that call KillAllEnginesFromSignalHandler()
// and then re-raise the signal with its default action. For programs without
// handlers of their own; the run module may install its own and call the above.
void InstallEngineCleanupSignalHandlers();

}  // namespace servebench::engine
