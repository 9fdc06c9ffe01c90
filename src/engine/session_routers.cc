// Services (etcd, NATS) and the router/frontend of a serve session (sessions.yaml):
//
//   sim-router       servebench sim --role router --prefill URL … --decode URL … [--policy P]
//   vllm-router      vllm-router --vllm-pd-disaggregation --prefill URL … --decode URL …
//   sglang-router    python3 -m sglang_router.launch_router --pd-disaggregation
//                    --prefill URL BOOTSTRAP_PORT … --decode URL …
//   trtllm-disagg    trtllm-serve disaggregated -c FILE (context/generation server URLs)
//   dynamo-frontend  python3 -m dynamo.frontend --http-port P (workers register in etcd)
#include <fmt/format.h>
#include <unistd.h>

#include "engine/adapter.h"
#include "engine/session_render.h"

namespace servebench::engine::internal {
namespace {

std::string Fill(std::string text, const std::string& host, int port) {
  for (auto [key, value] : {std::pair<std::string, std::string>{"{host}", host},
                            std::pair<std::string, std::string>{"{port}", std::to_string(port)}}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
      text.replace(at, key.size(), value);
      at += value.size();
    }
  }
  return text;
}

// What the router's config file lists for trtllm-serve disaggregated.
std::string TrtllmDisaggYaml(const std::string& host, int port,
                             const std::vector<const SessionProcess*>& context,
                             const std::vector<const SessionProcess*>& generation) {
  auto servers = [](const char* key, const std::vector<const SessionProcess*>& list) {
    std::string y = fmt::format("{}:\n  num_instances: {}\n  urls:\n", key, list.size());
    for (const auto* p : list)
      y += fmt::format("    - \"{}:{}\"\n", p->command.host, p->command.port);
    return y;
  };
  return fmt::format("hostname: {}\nport: {}\nbackend: pytorch\n", host, port) +
         servers("context_servers", context) + servers("generation_servers", generation);
}

}  // namespace

std::string UrlOf(const SessionProcess& p) {
  return fmt::format("http://{}:{}", p.command.host, p.command.port);
}

std::string ServebenchBinary(const RenderOptions& options) {
  if (!options.servebench_bin.empty()) return options.servebench_bin;
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "servebench";
}

Status RenderServices(SessionContext& ctx, std::vector<SessionProcess>* out) {
  const std::string& host = ctx.nodes[0];
  for (const auto& name : ctx.stack.services) {
    const SessionService& svc = ctx.sessions.services.at(name);
    SB_ASSIGN_OR_RETURN(int port, ctx.ports.Fixed(0, svc.port));
    SessionProcess p;
    p.kind = ProcessKind::kService;
    p.role = name;
    p.nodes = {0};
    p.readiness = ProcessReadiness::kTcp;
    p.command.engine = name;
    p.command.host = host;
    p.command.port = port;
    p.command.readiness_timeout_s = 120;
    for (const auto& word : svc.command) p.command.argv.push_back(Fill(word, host, port));
    for (const auto& [k, v] : svc.env_for_workers) ctx.services_env[k] = Fill(v, host, port);
    out->push_back(std::move(p));
  }
  return Status::Ok();
}

StatusOr<SessionProcess> RenderRouter(SessionContext& ctx, const std::vector<SessionProcess>& all,
                                      const std::map<size_t, int>& bootstrap_ports) {
  const SessionRouter& r = ctx.router;
  const std::string& host = ctx.nodes[0];
  SB_ASSIGN_OR_RETURN(int port, ctx.ports.Fixed(0, ctx.stack.router_port));
  SessionProcess p;
  p.kind = ProcessKind::kRouter;
  p.role = "router";
  p.nodes = {0};
  p.readiness = ProcessReadiness::kHttp;
  ServerCommand& cmd = p.command;
  cmd.engine = r.name;
  cmd.host = host;
  cmd.port = port;
  // The router is ready once its workers are: the slowest worker's deadline applies.
  cmd.readiness_timeout_s = 0;
  cmd.readiness_poll_ms = 200;
  std::vector<const SessionProcess*> prefill, decode, aggregated;
  for (size_t i = 0; i < all.size(); ++i) {
    const SessionProcess& w = all[i];
    if (w.kind != ProcessKind::kWorker) continue;
    cmd.readiness_timeout_s = std::max(cmd.readiness_timeout_s, w.command.readiness_timeout_s);
    if (w.node_rank > 0) continue;  // followers serve nothing
    (w.role == "prefill" ? prefill : w.role == "decode" ? decode : aggregated).push_back(&w);
  }
  auto& argv = cmd.argv;
  if (ctx.stack.engine == "sim") argv.push_back(ServebenchBinary(ctx.options.render));
  argv.insert(argv.end(), r.command.begin(), r.command.end());
  if (r.config_file) {
    const std::string dir =
        (ctx.options.render.work_dir.empty() ? "." : ctx.options.render.work_dir) + "/router";
    const std::string path = dir + "/disagg.yaml";
    cmd.files.push_back(
        {path, TrtllmDisaggYaml(host, port, ctx.topology.disagg ? prefill : aggregated,
                                ctx.topology.disagg ? decode : aggregated)});
    argv.push_back(r.Flag("config"));
    argv.push_back(path);
  } else {
    if (ctx.topology.disagg && !r.pd_flag.empty()) argv.push_back(r.pd_flag);
    if (!r.Flag("host").empty()) argv.insert(argv.end(), {r.Flag("host"), host});
    argv.insert(argv.end(), {r.Flag("port"), std::to_string(port)});
    if (!r.discovers_workers) {
      for (size_t i = 0; i < all.size(); ++i) {
        const SessionProcess& w = all[i];
        if (w.kind != ProcessKind::kWorker || w.node_rank > 0) continue;
        const char* which = !ctx.topology.disagg  ? "worker"
                            : w.role == "prefill" ? "prefill"
                                                  : "decode";
        argv.push_back(r.Flag(which));
        argv.push_back(UrlOf(w));
        if (w.role == "prefill" && r.prefill_takes_bootstrap_port) {
          auto it = bootstrap_ports.find(i);
          if (it != bootstrap_ports.end()) argv.push_back(std::to_string(it->second));
        }
      }
    }
  }
  if (!ctx.topology.router_policy.empty()) {
    if (r.Flag("policy").empty()) {
      return Status::InvalidArgument(
          fmt::format("topology.router_policy = \"{}\": router {} takes no policy",
                      ctx.topology.router_policy, r.name));
    }
    argv.insert(argv.end(), {r.Flag("policy"), ctx.topology.router_policy});
  }
  argv.insert(argv.end(), ctx.stack.router_args.begin(), ctx.stack.router_args.end());
  if (ctx.stack.engine == "sim") {
    // The simulated router draws its random policy from the session's seed.
    for (const char* key : {"seed", "--seed"}) {
      if (auto it = ctx.serve.sim_options.find(key); it != ctx.serve.sim_options.end())
        argv.insert(argv.end(), {"--seed", it->second});
    }
  }
  for (const auto& [k, v] : ctx.services_env) cmd.env[k] = v;
  if (ctx.stack.engine != "sim" &&
      ctx.options.render.container.kind != ContainerProfile::Kind::kNone &&
      !ctx.serve.image.empty()) {
    SB_ASSIGN_OR_RETURN(cmd, WrapInContainer(cmd, ctx.serve.image, ctx.options.render.container));
  }
  return p;
}

}  // namespace servebench::engine::internal
