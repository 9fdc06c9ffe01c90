// Serve sessions of several processes for the executor: the plan's nodes are this
// machine (every "node" of a simulated session is this host) or, with --slurm-steps,
// the Slurm allocation's nodes; engine::ServeSession starts and watches the processes.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <filesystem>

#include "engine/engine.h"
#include "engine/serve_session.h"
#include "run/real_backends.h"
#include "run/slurm_steps.h"

namespace servebench::run {
namespace {

namespace fs = std::filesystem;

std::string FirstModelId(const std::string& models_json) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(models_json, ec);
  if (ec || !v.is_object()) return "";
  const auto* data = v.as_object().if_contains("data");
  if (data == nullptr || !data->is_array() || data->as_array().empty()) return "";
  const auto& first = data->as_array().front();
  const auto* id = first.is_object() ? first.as_object().if_contains("id") : nullptr;
  return id != nullptr && id->is_string() ? std::string(id->as_string()) : "";
}

class SessionEngine final : public LiveEngine {
 public:
  SessionEngine(std::unique_ptr<engine::ServeSession> session, std::string log_dir,
                std::string profile_root)
      : session_(std::move(session)),
        log_dir_(std::move(log_dir)),
        profile_root_(std::move(profile_root)),
        served_model_(FirstModelId(session_->models_json())) {}
  ~SessionEngine() override { Stop(); }

  std::string base_url() const override { return session_->base_url(); }
  std::string engine_version() const override { return session_->engine_version(); }
  std::string served_model() const override { return served_model_; }
  std::string log_path() const override { return log_dir_; }
  // --profile: the session's root, one folder per engine process below it.
  std::string profile_dir() const override { return profile_root_; }
  bool IsAlive() override { return session_->IsAlive(); }
  bool ExitsWithin(int timeout_ms) override { return session_->ExitsWithin(timeout_ms); }
  Failure Diagnose() override {
    engine::SessionFailure f = session_->Diagnose(engine::Situation::kDiedDuringRun);
    return {f.failure.failure_class, f.failure.summary};
  }
  void Stop() override { (void)session_->Stop(); }
  std::vector<RoleEndpoint> role_metrics_endpoints() const override {
    std::vector<RoleEndpoint> out;
    for (const auto& p : session_->plan().processes) {
      // Workers with an API (leaders) and the router; services and followers have none.
      if (p.kind == engine::ProcessKind::kService ||
          p.readiness == engine::ProcessReadiness::kLeader)
        continue;
      const std::string base = engine::BaseUrl(p.command);
      out.push_back({p.role, p.Name(), base + "/metrics", p.gpus, p.profile_dir, base});
    }
    return out;
  }

 private:
  std::unique_ptr<engine::ServeSession> session_;
  std::string log_dir_;
  std::string profile_root_;
  std::string served_model_;
};

}  // namespace

std::unique_ptr<LiveEngine> StartServeSession(const RunSettings& settings,
                                              const recipe::ServeSpec& serve,
                                              const std::string& log_path, Failure* failure) {
  auto start_failed = [&](const std::string& why) -> std::unique_ptr<LiveEngine> {
    *failure = {failure_class::kInfraStartFailed, why};
    return nullptr;
  };
  auto topology = recipe::SessionTopology(serve);
  if (!topology.ok()) return start_failed(topology.status().message());
  engine::SessionOptions options;
  options.render = EngineRenderOptions(settings, 0);
  std::vector<SlurmNode> nodes;
  if (settings.slurm_steps) {
    auto allocated = AllocationNodes();
    if (!allocated.ok()) return start_failed(allocated.status().message());
    nodes = std::move(*allocated);
    if (static_cast<int>(nodes.size()) < topology->nodes) {
      return start_failed(
          fmt::format("the session needs {} node(s) ({}); the Slurm allocation has {}",
                      topology->nodes, recipe::DescribeTopology(*topology), nodes.size()));
    }
    for (const auto& n : nodes) options.node_hosts.push_back(n.address);
    // The image runs under srun's pyxis flags, not a second wrapper.
    options.render.container = engine::ContainerProfile{};
  } else {
    if (topology->nodes > 1 && serve.engine != "sim") {
      return start_failed(fmt::format(
          "the session needs {} nodes ({}); run it with --executor slurm (only the simulator "
          "plays several nodes on one machine)",
          topology->nodes, recipe::DescribeTopology(*topology)));
    }
    options.node_hosts.assign(static_cast<size_t>(topology->nodes), "127.0.0.1");
  }
  // Processes that share this host (all of them locally; a test cluster's node names
  // on one machine) get free ports; nodes of their own keep the stack's numbering.
  std::vector<bool> shared(options.node_hosts.size());
  for (size_t i = 0; i < shared.size(); ++i) shared[i] = IsThisHost(options.node_hosts[i]);
  options.port_for = [&](int node, int default_port) -> StatusOr<int> {
    const size_t n = static_cast<size_t>(node);
    if (n < shared.size() && !shared[n]) return default_port;
    return engine::FindFreePort(n < options.node_hosts.size() ? options.node_hosts[n]
                                                              : "127.0.0.1");
  };
  // --profile: <out>/profiles/<session>-<start>/, named as its logs, one folder below it
  // per engine process (engine::SessionOptions::profile_root).
  std::string profile_root;
  if (settings.profile) {
    profile_root = (fs::path(settings.out_dir) / "profiles" / fs::path(log_path).stem()).string();
    options.profile_root = profile_root;
    // In a container each engine writes to the same path, mounted.
    if (options.render.container.kind != engine::ContainerProfile::Kind::kNone)
      options.render.container.mounts.push_back(profile_root + ":" + profile_root);
  }
  auto plan = engine::PlanSession(serve, options);
  if (!plan.ok()) return start_failed(plan.status().message());
  if (!profile_root.empty()) {
    bool any = false;
    for (const engine::SessionProcess& p : plan->processes) {
      if (p.profile_dir.empty()) continue;
      any = true;
      std::error_code ec;
      fs::create_directories(p.profile_dir, ec);
      if (ec) {
        return start_failed(
            fmt::format("--profile: cannot create {}: {}", p.profile_dir, ec.message()));
      }
    }
    // An engine without a profiler (TensorRT-LLM) has no folder: nothing to record.
    if (!any) profile_root.clear();
  }

  engine::ServeSessionOptions o;
  // One log per process beside where a single engine's log would be.
  std::string dir = log_path;
  if (dir.size() > 4 && dir.compare(dir.size() - 4, 4, ".log") == 0) dir.resize(dir.size() - 4);
  o.log_dir = dir;
  o.echo = settings.echo_engine_log;
  o.readiness_timeout_s = settings.readiness_timeout_s;
  if (settings.slurm_steps) {
    const bool pyxis = settings.container == "srun";
    std::vector<std::string> mounts = settings.container_mounts;
    if (!profile_root.empty()) mounts.push_back(profile_root + ":" + profile_root);
    o.place = [nodes, pyxis, image = serve.image, mounts = std::move(mounts)](
                  const engine::SessionProcess& p,
                  const engine::SessionPlan&) -> StatusOr<engine::ServerCommand> {
      return SrunStep(p, nodes, image, pyxis, mounts);
    };
  }
  engine::SessionFailure sf;
  auto session = engine::ServeSession::Start(*plan, o, &sf);
  if (session == nullptr) {
    *failure = {sf.failure.failure_class, sf.failure.summary};
    return nullptr;
  }
  return std::make_unique<SessionEngine>(std::move(session), dir, profile_root);
}

}  // namespace servebench::run
