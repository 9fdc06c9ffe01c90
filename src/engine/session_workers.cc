// Worker processes of a serve session: one replica's single-server rendering by its
// engine adapter, then the stack's P/D and multi-node flags (sessions.yaml):
//
//   sim      servebench sim … --gpus G --node-index N --role prefill|decode --kv-connector C
//   vllm     vllm serve … --kv-transfer-config {"kv_connector":…,"kv_role":…}
//            (NIXL: VLLM_NIXL_SIDE_CHANNEL_HOST/PORT); a replica over several nodes:
//            DP --data-parallel-size-local/-start-rank/-address/-rpc-port, or TP
//            --nnodes/--node-rank/--master-addr; followers --headless
//   sglang   … --disaggregation-mode M --disaggregation-transfer-backend B
//            [--disaggregation-bootstrap-port P on prefill] [--dist-init-addr L:8300
//            --nnodes K --node-rank R]
//   trtllm   trtllm-serve … --config FILE with cache_transceiver_config (context
//            servers: disable_overlap_scheduler)
//   dynamo-* the Dynamo worker module in place of the engine's command,
//            --disaggregation-mode, --request-plane tcp, DYN_SYSTEM_PORT, etcd/NATS env;
//            TensorRT-LLM: trtllm-llmapi-launch … --extra-engine-args YAML
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "engine/adapter.h"
#include "engine/session_render.h"

namespace servebench::engine::internal {
namespace {

using recipe::WorkerRole;

bool IsDynamo(const SessionStack& stack) { return !stack.worker_command.empty(); }

recipe::ServeSpec ReplicaSpec(const SessionContext& ctx, const recipe::WorkerSpec& w) {
  recipe::ServeSpec s = ctx.serve;
  s.multinode = false;
  s.disagg = false;
  s.prefill = {};
  s.decode = {};
  s.router_name.clear();
  s.router_version.clear();
  s.router_policy.clear();
  s.kv_p2p_transfer.clear();
  s.gpus_per_node = 0;
  s.tp = w.tp;
  s.pp = w.pp;
  s.ep = w.ep;
  s.dp = 1;
  s.dp_attn = w.dp_attn;
  s.dcp_size = w.dcp_size;
  s.pcp_size = w.pcp_size;
  // vLLM rows write DEP as `tp: 1, ep: N` (disagg.md §1.3): N DP ranks of TP 1, which
  // the vLLM-flag adapters (vllm, sim) render from dp_attn with tp = N.
  if ((ctx.stack.engine == "vllm" || ctx.stack.engine == "sim") && w.dp_attn && w.ep > w.tp)
    s.tp = w.ep;
  // The role's settings are its environment (InferenceX exports them before launch).
  for (const auto& kv : w.additional_settings) {
    auto eq = kv.find('=');
    if (eq != std::string::npos) s.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return s;
}

void RemoveFlag(std::vector<std::string>& argv, const std::string& flag) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == flag) {
      argv.erase(argv.begin() + static_cast<long>(i),
                 argv.begin() + static_cast<long>(std::min(argv.size(), i + 2)));
      return;
    }
  }
}

void Add(std::vector<std::string>& argv, const std::string& flag, const std::string& value) {
  argv.push_back(flag);
  argv.push_back(value);
}

// The integer after `flag` in argv; `otherwise` when absent or not a number.
int FlagInt(const std::vector<std::string>& argv, const std::string& flag, int otherwise) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag) {
      char* end = nullptr;
      long v = std::strtol(argv[i + 1].c_str(), &end, 10);
      return end != nullptr && *end == '\0' && v > 0 ? static_cast<int>(v) : otherwise;
    }
  }
  return otherwise;
}

std::string Gpus(const std::vector<int>& gpus) {
  std::string out;
  for (int g : gpus) out += (out.empty() ? "" : ",") + std::to_string(g);
  return out;
}

// The replica-level port `purpose`, allocated by the replica's first process.
StatusOr<int> ReplicaPort(SessionContext& ctx, const WorkerSlot& slot, const char* purpose,
                          const std::function<StatusOr<int>()>& allocate) {
  const std::string key =
      fmt::format("{}/{}/{}", recipe::WorkerRoleName(slot.role->role), slot.replica, purpose);
  if (auto it = ctx.replica_ports.find(key); it != ctx.replica_ports.end()) return it->second;
  SB_ASSIGN_OR_RETURN(int port, allocate());
  ctx.replica_ports[key] = port;
  return port;
}

// The kv-transfer-config JSON of a vLLM worker (disagg.md §2.3).
std::string VllmKvTransferConfig(const SessionContext& ctx, WorkerRole role) {
  const std::string& name = ctx.engine.connectors.at(ctx.topology.kv_connector);
  const bool both = std::find(ctx.engine.kv_both.begin(), ctx.engine.kv_both.end(),
                              ctx.topology.kv_connector) != ctx.engine.kv_both.end();
  std::string kv_role = "kv_both";
  if (!both) {
    auto it = ctx.engine.kv_roles.find(std::string(recipe::WorkerRoleName(role)));
    if (it != ctx.engine.kv_roles.end()) kv_role = it->second;
  }
  return fmt::format(R"({{"kv_connector":"{}","kv_role":"{}"}})", name, kv_role);
}

Status AddVllm(SessionContext& ctx, const WorkerSlot& slot, const std::string& host,
               ServerCommand& cmd) {
  auto& argv = cmd.argv;
  const auto& e = ctx.engine;
  const recipe::RoleTopology& r = *slot.role;
  if (ctx.topology.disagg) {
    Add(argv, e.Flag("kv_transfer_config"), VllmKvTransferConfig(ctx, r.role));
    if (ctx.topology.kv_connector == "nixl") {
      // Each DP rank uses base + rank: a replica reserves one port per rank.
      const int ranks = r.worker.dp_attn ? r.gpus_per_replica : 1;
      SB_ASSIGN_OR_RETURN(int side, ReplicaPort(ctx, slot, "nixl", [&] {
                            return ctx.ports.NixlBlock(slot.leader_node, ranks);
                          }));
      cmd.env[e.env.at("side_channel_host")] = host;
      cmd.env[e.env.at("side_channel_port")] = std::to_string(side);
    }
  }
  if (slot.replica_nodes > 1) {
    const std::string& leader = ctx.nodes[static_cast<size_t>(slot.leader_node)];
    if (r.worker.dp_attn) {
      const int local = ctx.topology.gpus_per_node;
      SB_ASSIGN_OR_RETURN(int rpc, ReplicaPort(ctx, slot, "dp_rpc",
                                               [&] { return ctx.ports.DpRpc(slot.leader_node); }));
      Add(argv, e.Flag("dp_size_local"), std::to_string(local));
      Add(argv, e.Flag("dp_start_rank"), std::to_string(slot.node_rank * local));
      Add(argv, e.Flag("dp_address"), leader);
      Add(argv, e.Flag("dp_rpc_port"), std::to_string(rpc));
    } else {
      Add(argv, e.Flag("nnodes"), std::to_string(slot.replica_nodes));
      Add(argv, e.Flag("node_rank"), std::to_string(slot.node_rank));
      Add(argv, e.Flag("master_addr"), leader);
    }
    if (slot.node_rank > 0) argv.push_back(e.Flag("headless"));
  }
  return Status::Ok();
}

Status AddSglang(SessionContext& ctx, const WorkerSlot& slot, ServerCommand& cmd,
                 int* bootstrap_port) {
  auto& argv = cmd.argv;
  const auto& e = ctx.engine;
  const recipe::RoleTopology& r = *slot.role;
  if (ctx.topology.disagg) {
    Add(argv, e.Flag("mode"), std::string(recipe::WorkerRoleName(r.role)));
    Add(argv, e.Flag("transfer_backend"), e.connectors.at(ctx.topology.kv_connector));
    if (r.role == WorkerRole::kPrefill) {
      // Passed explicitly: SGLang's default 8998 collides on a shared head (§2.4).
      SB_ASSIGN_OR_RETURN(*bootstrap_port, ReplicaPort(ctx, slot, "bootstrap", [&] {
        return ctx.ports.Bootstrap(slot.leader_node);
      }));
      Add(argv, e.Flag("bootstrap_port"), std::to_string(*bootstrap_port));
    }
  }
  if (slot.replica_nodes > 1) {
    SB_ASSIGN_OR_RETURN(int init, ReplicaPort(ctx, slot, "dist_init", [&] {
                          return ctx.ports.Fixed(slot.leader_node, 8300);
                        }));
    Add(argv, e.Flag("dist_init_addr"),
        fmt::format("{}:{}", ctx.nodes[static_cast<size_t>(slot.leader_node)], init));
    Add(argv, e.Flag("nnodes"), std::to_string(slot.replica_nodes));
    Add(argv, e.Flag("node_rank"), std::to_string(slot.node_rank));
  }
  return Status::Ok();
}

// TensorRT-LLM's engine YAML: the adapter's (attention DP, KV dtype, speculative
// config) plus the KV cache transceiver (disagg.md §2.5).
std::string TrtllmYaml(const SessionContext& ctx, const recipe::RoleTopology& r,
                       const std::string& adapter_yaml, bool with_parallelism) {
  std::string y;
  if (with_parallelism) {
    y += fmt::format("tensor_parallel_size: {}\npipeline_parallel_size: {}\n", r.worker.tp,
                     r.worker.pp);
    if (r.worker.ep > 1) y += fmt::format("moe_expert_parallel_size: {}\n", r.worker.ep);
  }
  if (adapter_yaml != "{}\n" && adapter_yaml != "{}") y += adapter_yaml;
  if (ctx.topology.disagg) {
    y += fmt::format("cache_transceiver_config:\n  backend: {}\n",
                     ctx.engine.connectors.at(ctx.topology.kv_connector));
    if (ctx.serve.max_model_len > 0)
      y += fmt::format("  max_tokens_in_buffer: {}\n", ctx.serve.max_model_len);
    if (r.role == WorkerRole::kPrefill) y += "disable_overlap_scheduler: true\n";
  }
  return y;
}

Status AddTrtllm(SessionContext& ctx, const WorkerSlot& slot, const std::string& dir,
                 ServerCommand& cmd) {
  const std::string path = dir + "/trtllm-config.yaml";
  std::string adapter_yaml;
  auto it = std::find_if(cmd.files.begin(), cmd.files.end(),
                         [&](const ConfigFile& f) { return f.path == path; });
  if (it != cmd.files.end()) {
    adapter_yaml = it->contents;
    cmd.files.erase(it);
  } else {
    Add(cmd.argv, "--config", path);
  }
  const std::string yaml = TrtllmYaml(ctx, *slot.role, adapter_yaml, /*with_parallelism=*/false);
  if (yaml.empty()) {
    RemoveFlag(cmd.argv, "--config");
  } else {
    cmd.files.push_back({path, yaml});
  }
  return Status::Ok();
}

// Dynamo: the worker module in place of the engine's command (srt-slurm backends).
Status MakeDynamo(SessionContext& ctx, const WorkerSlot& slot, const std::string& dir,
                  const EngineFlagTable& table, ServerCommand& cmd) {
  const SessionStack& st = ctx.stack;
  auto& argv = cmd.argv;
  const std::string mode = std::string(recipe::WorkerRoleName(slot.role->role));
  if (st.engine == "trtllm") {
    // trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path M --extra-engine-args Y.
    std::string adapter_yaml;
    for (const auto& f : cmd.files) adapter_yaml += f.contents;
    cmd.files.clear();
    std::vector<std::string> out = st.worker_launcher;
    out.insert(out.end(), st.worker_command.begin(), st.worker_command.end());
    out.push_back(ctx.serve.model);
    if (ctx.topology.disagg) Add(out, st.worker_flags.at("mode"), mode);
    const std::string path = dir + "/engine.yaml";
    cmd.files.push_back({path, TrtllmYaml(ctx, *slot.role, adapter_yaml, true)});
    Add(out, st.worker_flags.at("extra_engine_args"), path);
    out.insert(out.end(), ctx.serve.extra_args.begin(), ctx.serve.extra_args.end());
    argv = std::move(out);
  } else {
    // Replace the engine's command (vLLM: and its positional model) by the module.
    size_t head = table.command.size() + (st.engine == "vllm" ? 1 : 0);
    std::vector<std::string> out = st.worker_command;
    if (st.engine == "vllm") out.push_back(ctx.serve.model);
    out.insert(out.end(), argv.begin() + static_cast<long>(std::min(head, argv.size())),
               argv.end());
    argv = std::move(out);
    if (st.engine == "vllm") {
      // Dynamo's vLLM worker serves no HTTP API of its own.
      RemoveFlag(argv, table.Flag("host"));
      RemoveFlag(argv, table.Flag("port"));
    }
    if (ctx.topology.disagg && st.engine == "vllm") Add(argv, st.worker_flags.at("mode"), mode);
  }
  Add(argv, st.worker_flags.at("request_plane"), "tcp");
  cmd.env["DYN_REQUEST_PLANE"] = "tcp";
  // The system port serves /health and /metrics (disagg.md §6).
  SB_ASSIGN_OR_RETURN(int system, ctx.ports.DynamoSystem(slot.nodes[0]));
  cmd.env["DYN_SYSTEM_ENABLED"] = "true";
  cmd.env["DYN_SYSTEM_PORT"] = std::to_string(system);
  cmd.port = system;
  return Status::Ok();
}

}  // namespace

Status RenderWorker(SessionContext& ctx, const WorkerSlot& slot, std::vector<SessionProcess>* out,
                    std::map<size_t, int>* bootstrap_ports) {
  const recipe::RoleTopology& r = *slot.role;
  SessionProcess p;
  p.kind = ProcessKind::kWorker;
  p.role = std::string(recipe::WorkerRoleName(r.role));
  p.replica = slot.replica;
  p.node_rank = slot.node_rank;
  p.nodes = slot.nodes;
  p.gpus = slot.gpus;
  p.tasks = slot.tasks;
  const std::string& host = ctx.nodes[static_cast<size_t>(slot.nodes[0])];
  SB_ASSIGN_OR_RETURN(int port, ctx.ports.Http(slot.nodes[0]));
  RenderOptions options = ctx.options.render;
  options.host = host;
  options.port = port;
  options.use_launcher = false;
  options.container = ContainerProfile{};  // wrapped below, after the P/D flags
  // Each process's config files in a folder of its own: prefill-0, decode-1.node1, ...
  options.work_dir = (ctx.options.render.work_dir.empty() ? "." : ctx.options.render.work_dir) +
                     fmt::format("/{}-{}", p.role, p.replica) +
                     (p.node_rank > 0 ? fmt::format(".node{}", p.node_rank) : "");
  const recipe::ServeSpec replica = ReplicaSpec(ctx, r.worker);
  // --profile: a folder per process, so no two workers' traces share one.
  options.profile_dir.clear();
  if (!ctx.options.profile_root.empty() && ProfilerEnvVar(replica.engine) != nullptr) {
    p.profile_dir = ctx.options.profile_root + "/" + p.Name();
    options.profile_dir = p.profile_dir;
  }
  auto rendered = RenderServerCommand(replica, options, ctx.engines);
  if (!rendered.ok()) {
    return Status(rendered.status().code(),
                  fmt::format("{} worker: {}", p.role, rendered.status().message()));
  }
  ServerCommand cmd = std::move(*rendered);
  const EngineFlagTable& table = ctx.engines.engines.at(ctx.stack.engine);
  int bootstrap = 0;
  if (ctx.stack.engine == "sim") {
    // The GPUs it plays, as CUDA_VISIBLE_DEVICES would give them to a real engine: its
    // /metrics exports them under these indices and node (docs/power.md), so the
    // workers of a session on one machine export distinct GPUs. A replica over several
    // nodes (or one whose GPUs are not the sim's TP x DP) keeps the sim's own numbering.
    const int sim_gpus = FlagInt(cmd.argv, table.Flag("tensor_parallel"), 1) *
                         FlagInt(cmd.argv, table.Flag("data_parallel"), 1);
    if (slot.nodes.size() == 1 && static_cast<int>(slot.gpus.size()) == sim_gpus) {
      Add(cmd.argv, "--gpus", Gpus(slot.gpus));
    }
    Add(cmd.argv, "--node-index", std::to_string(slot.nodes[0]));
    if (ctx.topology.disagg) {
      Add(cmd.argv, ctx.engine.Flag("role"), p.role);
      Add(cmd.argv, ctx.engine.Flag("kv_connector"), ctx.topology.kv_connector);
    }
  } else if (ctx.stack.engine == "vllm") {
    SB_RETURN_IF_ERROR(AddVllm(ctx, slot, host, cmd));
  } else if (ctx.stack.engine == "sglang") {
    SB_RETURN_IF_ERROR(AddSglang(ctx, slot, cmd, &bootstrap));
  } else if (ctx.stack.engine == "trtllm" && !IsDynamo(ctx.stack)) {
    SB_RETURN_IF_ERROR(AddTrtllm(ctx, slot, options.work_dir, cmd));
  }
  cmd.argv.insert(cmd.argv.end(), ctx.stack.worker_args.begin(), ctx.stack.worker_args.end());
  p.readiness = slot.node_rank > 0 ? ProcessReadiness::kLeader : ProcessReadiness::kHttp;
  if (IsDynamo(ctx.stack)) {
    SB_RETURN_IF_ERROR(MakeDynamo(ctx, slot, options.work_dir, table, cmd));
    if (slot.node_rank == 0) p.readiness = ProcessReadiness::kHealth;
  }
  for (const auto& [k, v] : ctx.services_env) cmd.env[k] = v;
  // Replicas sharing a node see only their GPUs; an MPI launch assigns one per rank.
  if (slot.tasks <= 1 && ctx.stack.engine != "sim") {
    const bool amd = ctx.serve.hardware.rfind("mi", 0) == 0;
    cmd.env[amd ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES"] = Gpus(slot.gpus);
  }
  if (ctx.options.render.container.kind != ContainerProfile::Kind::kNone &&
      !ctx.serve.image.empty()) {
    SB_ASSIGN_OR_RETURN(cmd, WrapInContainer(cmd, ctx.serve.image, ctx.options.render.container));
  }
  p.command = std::move(cmd);
  if (bootstrap > 0) (*bootstrap_ports)[out->size()] = bootstrap;
  out->push_back(std::move(p));
  return Status::Ok();
}

}  // namespace servebench::engine::internal
