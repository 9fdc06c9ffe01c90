// PlanSession: stack and router choice, the checks, placement of every worker
// process on nodes and GPUs, and the --dry-run text. Rendering of each process is in
// session_workers.cc and session_routers.cc.
#include "engine/session_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "engine/command_display.h"
#include "engine/session_render.h"

namespace servebench::engine {
namespace {

using recipe::LaunchPath;
using recipe::RoleTopology;
using recipe::Topology;

struct StackChoice {
  const SessionStack* stack = nullptr;
  const SessionRouter* router = nullptr;
  const SessionEngine* engine = nullptr;
};

// disagg.md §1.1: the framework selects the launch path; srt-slurm rows run Dynamo.
StatusOr<std::string> StackName(const recipe::ServeSpec& serve, const Topology& t,
                                const SessionCatalog& c) {
  switch (t.launch) {
    case LaunchPath::kSrtSlurm: {
      const std::string e = serve.engine == "trtllm" ? "trt" : serve.engine;
      return "dynamo-" + e;
    }
    case LaunchPath::kAmdUtils:
      if (serve.framework == "sglang-disagg") return std::string("sglang-disagg");
      [[fallthrough]];
    case LaunchPath::kLlmD:
    case LaunchPath::kTileRt:
      return Status::FailedPrecondition(fmt::format(
          "serve.framework = \"{}\": servebench does not launch {} sessions (launch path {}); "
          "`servebench matrix` exports them for InferenceX's own launcher",
          serve.framework, serve.framework, recipe::LaunchPathName(t.launch)));
    case LaunchPath::kServebench:
      break;
  }
  if (c.stacks.count(serve.framework) > 0) return serve.framework;
  if (c.stacks.count(serve.engine) > 0) return serve.engine;
  std::string known;
  for (const auto& [name, s] : c.stacks) known += (known.empty() ? "" : ", ") + name;
  return Status::InvalidArgument(fmt::format(
      "serve.engine = \"{}\": no serve-session stack runs it (stacks: {})", serve.engine, known));
}

StatusOr<StackChoice> Choose(const recipe::ServeSpec& serve, const Topology& t,
                             const SessionCatalog& c) {
  SB_ASSIGN_OR_RETURN(std::string name, StackName(serve, t, c));
  auto it = c.stacks.find(name);
  if (it == c.stacks.end())
    return Status::Internal(fmt::format("stack {} missing from {}", name, c.origin));
  StackChoice choice;
  choice.stack = &it->second;
  choice.engine = &c.engines.at(choice.stack->engine);
  if (choice.stack->engine != serve.engine) {
    return Status::InvalidArgument(fmt::format("serve.engine = \"{}\": stack {} runs {} workers",
                                               serve.engine, name, choice.stack->engine));
  }
  // A row's router name is a label in InferenceX (its launcher decides); a native
  // recipe's names the router to run.
  const bool label_only = t.launch != LaunchPath::kServebench;
  const std::string router =
      label_only || serve.router_name.empty() ? choice.stack->router : serve.router_name;
  choice.router = c.FindRouter(router);
  if (choice.router == nullptr) {
    std::string known;
    for (const auto& [n, r] : c.routers) known += (known.empty() ? "" : ", ") + n;
    return Status::InvalidArgument(
        fmt::format("topology.router = \"{}\": unknown router (known: {})", router, known));
  }
  const auto& fronts = choice.router->engines;
  if (std::find(fronts.begin(), fronts.end(), serve.engine) == fronts.end()) {
    std::string list;
    for (const auto& e : fronts) list += (list.empty() ? "" : ", ") + e;
    return Status::InvalidArgument(
        fmt::format("topology.router = \"{}\": it cannot front {} workers (it fronts: {})", router,
                    serve.engine, list));
  }
  for (const auto& role : t.roles) {
    const std::string_view r = recipe::WorkerRoleName(role.role);
    if (!choice.engine->CanPlay(r)) {
      std::string list;
      for (const auto& x : choice.engine->roles) list += (list.empty() ? "" : ", ") + x;
      return Status::InvalidArgument(
          fmt::format("serve.engine = \"{}\": it cannot play the {} role (it plays: {})",
                      serve.engine, r, list));
    }
  }
  if (t.disagg) {
    const auto& connectors = choice.engine->connectors;
    if (t.kv_connector.empty() || connectors.count(t.kv_connector) == 0) {
      std::string list;
      for (const auto& [k, v] : connectors) list += (list.empty() ? "" : ", ") + k;
      return Status::InvalidArgument(
          fmt::format("topology.kv_connector = \"{}\": {} has no such KV connector (it speaks: {})",
                      t.kv_connector, serve.engine, list.empty() ? "none" : list));
    }
  }
  return choice;
}

// The worker processes of one role: one per replica, or one per node of a replica
// spanning nodes (TensorRT-LLM: one MPI launch over them all).
std::vector<internal::WorkerSlot> Slots(const RoleTopology& r, int gpus_per_node,
                                        bool one_process_per_replica, bool mpi) {
  std::vector<internal::WorkerSlot> out;
  for (int i = 0; i < r.replicas; ++i) {
    internal::WorkerSlot base;
    base.role = &r;
    base.replica = i;
    if (r.nodes_per_replica > 1) {
      base.replica_nodes = r.nodes_per_replica;
      base.leader_node = r.first_node + i * r.nodes_per_replica;
      for (int g = 0; g < gpus_per_node; ++g) base.gpus.push_back(g);
      if (one_process_per_replica) {
        for (int n = 0; n < r.nodes_per_replica; ++n) base.nodes.push_back(base.leader_node + n);
        if (mpi) base.tasks = r.gpus_per_replica;
        out.push_back(base);
      } else {
        for (int n = 0; n < r.nodes_per_replica; ++n) {
          internal::WorkerSlot s = base;
          s.node_rank = n;
          s.nodes = {base.leader_node + n};
          out.push_back(s);
        }
      }
    } else {
      base.leader_node = r.first_node + i / r.replicas_per_node;
      base.nodes = {base.leader_node};
      const int first_gpu = (i % r.replicas_per_node) * r.gpus_per_replica;
      for (int g = 0; g < r.gpus_per_replica; ++g) base.gpus.push_back(first_gpu + g);
      if (mpi) base.tasks = r.gpus_per_replica;
      out.push_back(base);
    }
  }
  return out;
}

std::string Join(const std::vector<int>& v, const char* sep = ",") {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : sep) + std::to_string(x);
  return out;
}

std::string JoinHosts(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
  return out;
}

}  // namespace

std::string SessionProcess::Name() const {
  if (kind != ProcessKind::kWorker) return role;
  std::string name = fmt::format("{}[{}]", role, replica);
  if (node_rank > 0) name += fmt::format(".node{}", node_rank);
  return name;
}

Status CheckSession(const recipe::ServeSpec& serve, const SessionCatalog& catalog) {
  SB_ASSIGN_OR_RETURN(Topology t, recipe::SessionTopology(serve));
  return Choose(serve, t, catalog).status();
}

std::vector<SessionProblem> CheckServeSessions(const std::vector<recipe::Point>& points,
                                               const SessionCatalog& catalog) {
  std::vector<SessionProblem> out;
  std::set<std::string> seen;
  for (const auto& p : points) {
    if (!recipe::HasTopology(p.serve) || !seen.insert(p.session_id).second) continue;
    Status s = CheckSession(p.serve, catalog);
    if (!s.ok()) out.push_back({p.recipe, p.session_id, s});
  }
  return out;
}

StatusOr<SessionPlan> PlanSession(const recipe::ServeSpec& serve, const SessionOptions& options,
                                  const EngineCatalog& engines, const SessionCatalog& sessions) {
  SB_ASSIGN_OR_RETURN(Topology t, recipe::SessionTopology(serve));
  SB_ASSIGN_OR_RETURN(StackChoice choice, Choose(serve, t, sessions));
  SessionPlan plan;
  plan.topology = t;
  plan.stack = choice.stack->name;
  plan.router = choice.router->name;
  for (int i = 0; i < std::max(1, t.nodes); ++i) {
    plan.nodes.push_back(i < static_cast<int>(options.node_hosts.size())
                             ? options.node_hosts[static_cast<size_t>(i)]
                             : fmt::format("node{}", i));
  }
  internal::SessionContext ctx{serve,
                               t,
                               *choice.stack,
                               *choice.engine,
                               *choice.router,
                               engines,
                               sessions,
                               options,
                               plan.nodes,
                               {},
                               internal::PortAllocator(options, choice.stack->worker_port),
                               {}};
  SB_RETURN_IF_ERROR(internal::RenderServices(ctx, &plan.processes));
  // The sim plays a whole replica in one process; TensorRT-LLM is one MPI launch per
  // replica; vLLM and SGLang run one process per node of a replica.
  const bool per_replica = choice.stack->engine == "sim" || choice.stack->engine == "trtllm";
  std::map<size_t, int> bootstrap_ports;
  for (const auto& role : t.roles) {
    for (const auto& slot :
         Slots(role, t.gpus_per_node, per_replica, choice.stack->engine == "trtllm")) {
      SB_RETURN_IF_ERROR(internal::RenderWorker(ctx, slot, &plan.processes, &bootstrap_ports));
    }
  }
  SB_ASSIGN_OR_RETURN(SessionProcess router,
                      internal::RenderRouter(ctx, plan.processes, bootstrap_ports));
  plan.processes.push_back(std::move(router));
  return plan;
}

StatusOr<SessionPlan> PlanSession(const recipe::ServeSpec& serve, const SessionOptions& options) {
  SB_ASSIGN_OR_RETURN(const EngineCatalog* engines, DefaultEngineCatalog());
  SB_ASSIGN_OR_RETURN(const SessionCatalog* sessions, DefaultSessionCatalog());
  return PlanSession(serve, options, *engines, *sessions);
}

std::string FormatSessionPlanForDisplay(const std::string& title, const SessionPlan& plan) {
  const Topology& t = plan.topology;
  std::string out = title.empty() ? "" : fmt::format("# {}\n", title);
  out += fmt::format(
      "# topology: {} ({}{}), stack {}, router {}{}; GPUs: prefill {}, decode {}, total {} on "
      "{} node(s) of {} GPUs (launch path {})\n",
      recipe::DescribeTopology(t), t.disagg ? "disaggregated" : "aggregated",
      t.disagg ? ", KV connector " + t.kv_connector : "", plan.stack, plan.router,
      t.router_policy.empty() ? "" : " (policy " + t.router_policy + ")", t.prefill_gpus,
      t.decode_gpus, t.total_gpus(), t.nodes, t.gpus_per_node, recipe::LaunchPathName(t.launch));
  std::string nodes;
  for (size_t i = 0; i < plan.nodes.size(); ++i) nodes += fmt::format(" {}={}", i, plan.nodes[i]);
  out += "# nodes:" + nodes + "\n";
  out += fmt::format("# the client targets http://{}:{}\n", plan.entry().command.host,
                     plan.entry().command.port);
  for (const auto& p : plan.processes) {
    std::vector<std::string> hosts;
    for (int n : p.nodes) hosts.push_back(plan.nodes[static_cast<size_t>(n)]);
    std::string where = p.nodes.size() == 1
                            ? fmt::format("node {} ({})", p.nodes[0], hosts[0])
                            : fmt::format("nodes {} ({})", Join(p.nodes), JoinHosts(hosts));
    std::string gpus = p.gpus.empty() ? "no GPU" : "GPUs " + Join(p.gpus);
    if (p.nodes.size() > 1 && !p.gpus.empty()) gpus += " on each";
    std::string tasks = p.tasks > 1 ? fmt::format(", {} MPI tasks", p.tasks) : "";
    const char* ready = p.readiness == ProcessReadiness::kHttp     ? "GET /health, /v1/models"
                        : p.readiness == ProcessReadiness::kHealth ? "GET /health"
                        : p.readiness == ProcessReadiness::kTcp    ? "TCP connect"
                                                                   : "its leader's readiness";
    out += fmt::format("\n## {}: {}, {}{}; ready: {}\n", p.Name(), where, gpus, tasks, ready);
    out += FormatCommandForDisplay(p.command);
  }
  return out;
}

}  // namespace servebench::engine
