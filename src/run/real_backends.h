// The real implementations of the executor's backends: engines started by
// engine::Supervisor, load runs by client::RunBench, evals by eval::RunEval.
// Each maps a Point onto its module's settings and nothing more, so the mapping is
// the only thing to read when a recipe field seems not to reach an engine or client.
#pragma once

#include <optional>
#include <string>

#include "client/client_settings.h"
#include "engine/server_command.h"
#include "run/backends.h"
#include "run/run_settings.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::run {

// The engine command of `serve` as the run starts it (port 0 = the engine's default,
// as --dry-run shows). The adapter's refusals (owned flags, unsupported combinations)
// come from here, so `validate` and `run` meet the same ones. `max_concurrency` is the
// session's highest concurrency (RenderOptions::max_concurrency; 0 = not known).
StatusOr<engine::ServerCommand> RenderEngineCommand(const RunSettings& settings,
                                                    const recipe::ServeSpec& serve, int port,
                                                    int max_concurrency = 0);

// The point's load as `servebench bench` settings: what NativeLoadBackend runs and
// what the preflight validates (client::Validate) before anything starts.
client::BenchSettings BenchSettingsFor(const recipe::Point& point, const RunSettings& settings,
                                       const std::string& base_url,
                                       const std::string& requests_path);

// What a point's evals need before its engine starts: a real engine needs
// --eval-data (sim engines get synthetic problems); --eval-thresholds must load.
Status CheckEvalInputs(const recipe::Point& point, const RunSettings& settings);

// Engines on this machine: a free loopback port per start, the command rendered
// by engine/ adapters, supervised until Stop().
class SupervisedEngineBackend final : public EngineBackend {
 public:
  explicit SupervisedEngineBackend(const RunSettings& settings);
  StatusOr<std::string> Render(const recipe::ServeSpec& serve, int max_concurrency) override;
  // Starts the engine (or session) on free ports; when it could not bind one because
  // another process took it after it was picked (engine::IsPortTaken), starts it again
  // on fresh ports, at most kPortAttempts times in all, saying so on stderr. A
  // verbatim command (its own port) and --slurm-steps (the stack's ports) are not
  // retried: their ports were not picked.
  std::unique_ptr<LiveEngine> Start(const recipe::ServeSpec& serve, int max_concurrency,
                                    const std::string& log_path, Failure* failure) override;

  static constexpr int kPortAttempts = 3;

 private:
  std::unique_ptr<LiveEngine> StartOnce(const recipe::ServeSpec& serve, int max_concurrency,
                                        const std::string& log_path, Failure* failure);

  const RunSettings& settings_;
};

// Load runs with servebench's own client.
class NativeLoadBackend final : public LoadBackend {
 public:
  explicit NativeLoadBackend(const RunSettings& settings) : settings_(settings) {}
  // Measures the session's idle power (RunSettings::idle_power_s); keeps the
  // session's workers for power (telemetry::SessionWorker: their endpoints are read
  // and their GPUs split prefill / decode energy).
  void OnEngineReady(const recipe::Point& first_point, const std::string& base_url,
                     const std::vector<RoleEndpoint>& roles,
                     const std::atomic<bool>* cancel) override;
  LoadOutcome Run(const recipe::Point& point, const std::string& base_url,
                  const std::string& requests_path, const std::atomic<bool>* cancel) override;
  // search::RunSloSearch with SearchSettingsFor(point) (search_point.h), each probe a
  // client::RunBench with the session's workers, hooks and idle power as Run's.
  SearchOutcome Search(const recipe::Point& point, const std::string& base_url,
                       const std::atomic<bool>* cancel) override;

 private:
  // The session's part of every load run: its workers, their hooks, its idle power.
  void AddSession(client::BenchSettings* bench) const;

  const RunSettings& settings_;
  std::vector<telemetry::SessionWorker> workers_;  // the current session's, if several
  // --profile and --reset-prefix-cache: the current session's engine processes (its
  // workers, not its router), if several.
  std::vector<client::EngineProcess> engine_processes_;
  std::optional<double> idle_power_w_;  // of the current session's GPUs, per GPU
  std::string idle_note_;               // why it is missing
};

// Accuracy evals (gsm8k) with the floor gate. Without --eval-data, a sim engine is
// evaluated on synthetic problems (answered by its oracle); a real engine needs
// the data and fails the eval with a clear message otherwise.
class NativeEvalBackend final : public EvalBackend {
 public:
  explicit NativeEvalBackend(const RunSettings& settings) : settings_(settings) {}
  EvalOutcome Run(const recipe::Point& point, const std::string& base_url,
                  const std::string& out_dir, const std::atomic<bool>* cancel) override;

 private:
  const RunSettings& settings_;
};

// What every engine rendering of the run shares: servebench binary, config folder
// under --out, the container profile; `port` 0 = the engine's default;
// `max_concurrency` as RenderEngineCommand's.
engine::RenderOptions EngineRenderOptions(const RunSettings& settings, int port,
                                          int max_concurrency = 0);

// SupervisedEngineBackend::Start for a serve session of several processes
// (real_session_backend.cc): its plan on this machine, or on the Slurm allocation's
// nodes with settings.slurm_steps, started by engine::ServeSession; the client
// targets its router. Null with `failure` (classified by role) when it cannot start.
std::unique_ptr<LiveEngine> StartServeSession(const RunSettings& settings,
                                              const recipe::ServeSpec& serve,
                                              const std::string& log_path, Failure* failure);

}  // namespace servebench::run
