#include <fmt/format.h>

#include <boost/json.hpp>
#include <filesystem>

#include "engine/engine.h"
#include "recipe/topology.h"
#include "run/real_backends.h"

namespace servebench::run {
namespace {

// data[0].id of an OpenAI /v1/models body, or "".
std::string FirstModelId(const std::string& models_json) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(models_json, ec);
  if (ec || !v.is_object()) return "";
  const boost::json::value* data = v.as_object().if_contains("data");
  if (data == nullptr || !data->is_array() || data->as_array().empty()) return "";
  const boost::json::value& first = data->as_array().front();
  if (!first.is_object()) return "";
  const boost::json::value* id = first.as_object().if_contains("id");
  return id != nullptr && id->is_string() ? std::string(id->as_string()) : "";
}

using Supervisors = std::vector<std::unique_ptr<engine::Supervisor>>;

// Stops the engine's auxiliary servers, last started first.
void StopAll(Supervisors* auxiliary) {
  for (auto it = auxiliary->rbegin(); it != auxiliary->rend(); ++it) (void)(*it)->Stop();
  auxiliary->clear();
}

// The first auxiliary server that is no longer running, or null.
engine::Supervisor* EndedAuxiliary(const Supervisors& auxiliary) {
  for (const auto& aux : auxiliary)
    if (!aux->IsAlive()) return aux.get();
  return nullptr;
}

// An auxiliary server that ended: what the run reports (it has no signatures of
// its own; its log says why).
Failure AuxiliaryEnded(engine::Supervisor* aux, const char* when) {
  return {failure_class::kInfraStartFailed,
          fmt::format("auxiliary server {} ended {}; its log: {}", aux->command().engine, when,
                      aux->log_path())};
}

// The router in front of the engine that ended: what the run reports.
Failure RouterEnded(engine::Supervisor* router, const char* when) {
  return {failure_class::kInfraStartFailed,
          fmt::format("router {} ended {}; its log: {}", router->command().engine, when,
                      router->log_path())};
}

class SupervisedEngine final : public LiveEngine {
 public:
  // `router`: the router in front of the engine (serve.command.router), or null.
  SupervisedEngine(std::unique_ptr<engine::Supervisor> supervisor, Supervisors auxiliary,
                   std::unique_ptr<engine::Supervisor> router, const engine::ReadyInfo& ready,
                   std::string profile_dir)
      : supervisor_(std::move(supervisor)),
        auxiliary_(std::move(auxiliary)),
        router_(std::move(router)),
        version_(ready.engine_version),
        served_model_(FirstModelId(ready.models_json)),
        profile_dir_(std::move(profile_dir)) {}
  ~SupervisedEngine() override { Stop(); }

  // The router's address when one fronts the engine: the load goes where InferenceX's
  // client sends it.
  std::string base_url() const override {
    return engine::BaseUrl(router_ ? router_->command() : supervisor_->command());
  }
  std::string engine_version() const override { return version_; }
  std::string served_model() const override { return served_model_; }
  std::string log_path() const override { return supervisor_->log_path(); }
  std::string profile_dir() const override { return profile_dir_; }
  // The engine and every server it needs: one ending ends the session.
  bool IsAlive() override {
    return supervisor_->IsAlive() && EndedAuxiliary(auxiliary_) == nullptr &&
           (!router_ || router_->IsAlive());
  }
  bool ExitsWithin(int timeout_ms) override {
    return supervisor_->WaitForExit(timeout_ms).has_value();
  }
  Failure Diagnose() override {
    if (supervisor_->IsAlive()) {
      if (engine::Supervisor* aux = EndedAuxiliary(auxiliary_))
        return AuxiliaryEnded(aux, "during the run");
      if (router_ && !router_->IsAlive()) return RouterEnded(router_.get(), "during the run");
    }
    engine::EngineFailure f = supervisor_->Classify(engine::Situation::kDiedDuringRun);
    return {f.failure_class, f.summary};
  }
  Failure ExplainRequestFailures() override {
    engine::EngineFailure f = supervisor_->Classify(engine::Situation::kRequestsFailed);
    if (!f.signature_matched) return {};
    return {f.failure_class, f.summary};
  }
  void Stop() override {
    if (router_) (void)router_->Stop();
    (void)supervisor_->Stop();
    StopAll(&auxiliary_);
  }

 private:
  std::unique_ptr<engine::Supervisor> supervisor_;
  Supervisors auxiliary_;                       // in start order; stopped after the engine
  std::unique_ptr<engine::Supervisor> router_;  // null when none; stopped first
  std::string version_;
  std::string served_model_;
  std::string profile_dir_;
};

}  // namespace

engine::RenderOptions EngineRenderOptions(const RunSettings& settings, int port,
                                          int max_concurrency) {
  engine::RenderOptions options;
  options.port = port;
  options.max_concurrency = max_concurrency;
  options.work_dir = settings.out_dir + "/engine-config";
  options.servebench_bin = settings.servebench_binary;
  // The CLI checked the kind; an unknown one leaves the engine on the host.
  if (engine::ParseContainerKind(settings.container, &options.container.kind)) {
    options.container.run_args = settings.container_args;
    options.container.mounts = settings.container_mounts;
  }
  return options;
}

namespace {

// How long one prepare step (serve.prepare: a model or draft download into the HF
// cache) may take: a 700 GB checkpoint at 50 MB/s, with room to spare.
constexpr double kPrepareStepTimeoutS = 4 * 3600;

}  // namespace

StatusOr<engine::ServerCommand> RenderEngineCommand(const RunSettings& settings,
                                                    const recipe::ServeSpec& serve, int port,
                                                    int max_concurrency) {
  return engine::RenderServerCommand(serve, EngineRenderOptions(settings, port, max_concurrency));
}

SupervisedEngineBackend::SupervisedEngineBackend(const RunSettings& settings)
    : settings_(settings) {}

StatusOr<std::string> SupervisedEngineBackend::Render(const recipe::ServeSpec& serve,
                                                      int max_concurrency) {
  if (recipe::HasTopology(serve)) {
    // Every process of the session, on the nodes of an allocation that does not exist
    // yet (node0, node1, ...), with the stack's default ports.
    engine::SessionOptions options;
    options.render = EngineRenderOptions(settings_, 0, max_concurrency);
    SB_ASSIGN_OR_RETURN(engine::SessionPlan plan, engine::PlanSession(serve, options));
    return engine::FormatSessionPlanForDisplay("", plan);
  }
  // --dry-run shows the engine's own default port: the real run picks a free one.
  SB_ASSIGN_OR_RETURN(engine::ServerCommand command,
                      RenderEngineCommand(settings_, serve, 0, max_concurrency));
  return engine::FormatCommandForDisplay(command);
}

std::unique_ptr<LiveEngine> SupervisedEngineBackend::Start(const recipe::ServeSpec& serve,
                                                           int max_concurrency,
                                                           const std::string& log_path,
                                                           Failure* failure) {
  // A verbatim command listens on its own port, and Slurm nodes on the stack's: a
  // port servebench did not pick is not picked afresh by trying again.
  const bool picked_ports = serve.command.argv.empty() && !settings_.slurm_steps;
  for (int attempt = 1;; ++attempt) {
    std::unique_ptr<LiveEngine> engine = StartOnce(serve, max_concurrency, log_path, failure);
    if (engine != nullptr || !picked_ports || attempt == kPortAttempts ||
        !engine::IsPortTaken(failure->failure_class)) {
      return engine;
    }
    fmt::print(stderr,
               "servebench: {}: {}; another process took the port after servebench picked "
               "it: starting again on fresh ports (attempt {}/{})\n",
               serve.engine, failure->reason, attempt + 1, kPortAttempts);
  }
}

std::unique_ptr<LiveEngine> SupervisedEngineBackend::StartOnce(const recipe::ServeSpec& serve,
                                                               int max_concurrency,
                                                               const std::string& log_path,
                                                               Failure* failure) {
  if (recipe::HasTopology(serve)) return StartServeSession(settings_, serve, log_path, failure);
  auto port = engine::FindFreePort();
  if (!port.ok()) {
    *failure = {failure_class::kInfraStartFailed, port.status().message()};
    return nullptr;
  }
  engine::RenderOptions render = EngineRenderOptions(settings_, *port, max_concurrency);
  // --profile: one folder per engine start, named as its log (<session>-<start>).
  std::string profile_dir;
  if (settings_.profile && engine::ProfilerEnvVar(serve.engine) != nullptr) {
    profile_dir = (std::filesystem::path(settings_.out_dir) / "profiles" /
                   std::filesystem::path(log_path).stem())
                      .string();
    std::error_code ec;
    std::filesystem::create_directories(profile_dir, ec);
    if (ec) {
      *failure = {failure_class::kInfraStartFailed,
                  fmt::format("--profile: cannot create {}: {}", profile_dir, ec.message())};
      return nullptr;
    }
    render.profile_dir = profile_dir;
    // In a container the engine writes to the same path, mounted.
    render.container.mounts.push_back(profile_dir + ":" + profile_dir);
  }
  auto command = engine::RenderServerCommand(serve, render);
  if (!command.ok()) {
    *failure = {failure_class::kInfraStartFailed, command.status().message()};
    return nullptr;
  }
  if (!command->prepare.empty()) {
    engine::EngineFailure why;
    Status prepared =
        engine::RunPrepareSteps(*command, log_path + ".prepare", kPrepareStepTimeoutS, &why);
    if (!prepared.ok()) {
      *failure = {why.failure_class, why.summary};
      return nullptr;
    }
  }
  // Snapshot folders the command names exist once the prepare steps downloaded them.
  if (Status resolved = engine::ResolveHubSnapshots(render, &*command); !resolved.ok()) {
    *failure = {failure_class::kInfraPrepareFailed, resolved.message()};
    return nullptr;
  }
  // Auxiliary servers first (serve.command.auxiliary), each with its own log beside
  // the engine's: <log>.aux<i>-<program>.log. They answer no readiness probe; the
  // engine's readiness is the session's, and one that ended by then fails it.
  Supervisors auxiliary;
  for (size_t i = 0; i < command->auxiliary.size(); ++i) {
    const engine::ServerCommand& aux = command->auxiliary[i];
    engine::SupervisorOptions aux_options;
    aux_options.log_path = fmt::format("{}.aux{}-{}.log", log_path, i, aux.engine);
    aux_options.echo = settings_.echo_engine_log;
    aux_options.echo_prefix = "[" + aux.engine + "] ";
    auto started = engine::Supervisor::Start(aux, aux_options);
    if (!started.ok()) {
      *failure = {failure_class::kInfraStartFailed,
                  fmt::format("auxiliary server {}: {}", aux.engine, started.status().message())};
      StopAll(&auxiliary);
      return nullptr;
    }
    auxiliary.push_back(std::move(*started));
  }
  engine::SupervisorOptions options;
  options.log_path = log_path;
  options.echo = settings_.echo_engine_log;
  options.echo_prefix = "[" + serve.engine + "] ";
  options.readiness_timeout_s = settings_.readiness_timeout_s;
  auto supervisor = engine::Supervisor::Start(*command, options);
  if (!supervisor.ok()) {
    *failure = {failure_class::kInfraStartFailed, supervisor.status().message()};
    StopAll(&auxiliary);
    return nullptr;
  }
  auto ready = (*supervisor)->WaitUntilReady();
  engine::Supervisor* ended = EndedAuxiliary(auxiliary);
  if (!ready.ok() || ended != nullptr) {
    const auto& f = (*supervisor)->failure();
    if (ended != nullptr) {
      *failure = AuxiliaryEnded(ended, "before the engine was ready");
    } else {
      *failure = f ? Failure{f->failure_class, f->summary}
                   : Failure{failure_class::kUnknown, ready.status().message()};
    }
    (void)(*supervisor)->Stop();
    StopAll(&auxiliary);
    return nullptr;
  }
  // The router in front (serve.command.router), once the engine is ready, as
  // InferenceX's script starts it: its log <log>.router-<program>.log, its own
  // readiness (GET /health, /v1/models on its port).
  std::unique_ptr<engine::Supervisor> router;
  for (const engine::ServerCommand& command_router : command->router) {
    engine::SupervisorOptions router_options;
    router_options.log_path = fmt::format("{}.router-{}.log", log_path, command_router.engine);
    router_options.echo = settings_.echo_engine_log;
    router_options.echo_prefix = "[" + command_router.engine + "] ";
    auto started = engine::Supervisor::Start(command_router, router_options);
    Status router_ready = started.ok() ? Status::Ok() : started.status();
    if (started.ok()) {
      auto answered = (*started)->WaitUntilReady();
      if (!answered.ok()) router_ready = answered.status();
    }
    if (!router_ready.ok()) {
      *failure = {
          failure_class::kInfraStartFailed,
          fmt::format("router {} in front of the engine: {}; its log: {}", command_router.engine,
                      router_ready.message(), router_options.log_path)};
      if (started.ok()) (void)(*started)->Stop();
      (void)(*supervisor)->Stop();
      StopAll(&auxiliary);
      return nullptr;
    }
    router = std::move(*started);
  }
  return std::make_unique<SupervisedEngine>(std::move(*supervisor), std::move(auxiliary),
                                            std::move(router), *ready, profile_dir);
}

}  // namespace servebench::run
