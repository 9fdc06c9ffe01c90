// SessionTopology: roles, replicas, GPUs and nodes of a serve session, and how
// InferenceX counts its GPUs (disagg.md §1.3 and §3).
#include "recipe/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace servebench::recipe {
namespace {

// The value of KEY in a worker's KEY=VALUE settings, or "".
std::string Setting(const WorkerSpec& w, std::string_view key) {
  std::string value;
  for (const auto& kv : w.additional_settings) {
    auto eq = kv.find('=');
    if (eq != std::string::npos && std::string_view(kv).substr(0, eq) == key)
      value = kv.substr(eq + 1);  // the last one wins, as in a shell `export`
  }
  return value;
}

bool StartsWith(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// How a launch path counts a role's GPUs in its result file name (disagg.md §3).
int CountedGpus(LaunchPath launch, bool aggregated, const RoleTopology& r, int gpus_per_node) {
  switch (launch) {
    case LaunchPath::kAmdUtils:  // PREFILL_TP_SIZE × xP = nodes × the row's tp
      return r.nodes * r.worker.tp;
    case LaunchPath::kLlmD:  // PREFILL_NODES × GPUS_PER_NODE: whole nodes
      return r.nodes * gpus_per_node;
    case LaunchPath::kTileRt:  // PREFILL_TP × PREFILL_NUM_WORKERS
      return r.worker.tp * r.replicas;
    case LaunchPath::kSrtSlurm:  // workers × gpus_per_worker; aggregated: agg_nodes × gpus/node
      return aggregated ? r.nodes * gpus_per_node : r.gpus_used();
    case LaunchPath::kServebench:
      return r.gpus_used();
  }
  return r.gpus_used();
}

// Places one role: replicas per node or nodes per replica, and the role's node count.
Status PlaceRole(std::string_view path, int gpus_per_node, RoleTopology* r) {
  const int g = r->gpus_per_replica;
  if (g >= gpus_per_node) {
    if (g % gpus_per_node != 0) {
      return Status::InvalidArgument(fmt::format(
          "{}: one replica takes {} GPUs, which is not a whole number of {}-GPU nodes; a "
          "replica spanning nodes must fill them (tp × pp × pcp_size or ep a multiple of {})",
          path, g, gpus_per_node, gpus_per_node));
    }
    r->nodes_per_replica = g / gpus_per_node;
    r->replicas_per_node = 1;
  } else {
    if (gpus_per_node % g != 0) {
      return Status::InvalidArgument(
          fmt::format("{}: one replica takes {} GPUs, which does not divide a {}-GPU node; "
                      "replicas sharing a node must tile it",
                      path, g, gpus_per_node));
    }
    r->nodes_per_replica = 1;
    r->replicas_per_node = gpus_per_node / g;
  }
  const int needed = r->nodes_per_replica > 1
                         ? r->replicas * r->nodes_per_replica
                         : (r->replicas + r->replicas_per_node - 1) / r->replicas_per_node;
  if (r->worker.nodes == 0) {
    r->nodes = needed;
  } else if (r->worker.nodes < needed) {
    return Status::InvalidArgument(fmt::format(
        "{}.nodes = {}: {} replica(s) × {} GPUs need {} node(s) of {} GPUs; declare at least {} "
        "node(s) or fewer/smaller replicas",
        path, r->worker.nodes, r->replicas, g, needed, gpus_per_node, needed));
  } else {
    r->nodes = r->worker.nodes;
  }
  return Status::Ok();
}

}  // namespace

std::string_view WorkerRoleName(WorkerRole role) {
  switch (role) {
    case WorkerRole::kPrefill:
      return "prefill";
    case WorkerRole::kDecode:
      return "decode";
    case WorkerRole::kAggregated:
      return "aggregated";
  }
  return "aggregated";
}

std::string_view LaunchPathName(LaunchPath path) {
  switch (path) {
    case LaunchPath::kServebench:
      return "servebench";
    case LaunchPath::kSrtSlurm:
      return "srt-slurm";
    case LaunchPath::kAmdUtils:
      return "amd_utils";
    case LaunchPath::kLlmD:
      return "llm-d";
    case LaunchPath::kTileRt:
      return "tilert";
  }
  return "servebench";
}

LaunchPath LaunchPathFor(const ServeSpec& serve) {
  const std::string& f = serve.framework;
  if (f == "sglang-disagg" || f == "atom-disagg") return LaunchPath::kAmdUtils;
  if (StartsWith(f, "llmd-")) return LaunchPath::kLlmD;
  if (f == "tilert") return LaunchPath::kTileRt;
  // Every srt-slurm row names its srt-slurm recipe (CONFIG_FILE); a native recipe
  // that merely says `framework: dynamo-vllm` is launched by servebench itself.
  if (!Setting(serve.prefill, "CONFIG_FILE").empty()) return LaunchPath::kSrtSlurm;
  return LaunchPath::kServebench;
}

const RoleTopology* Topology::Find(WorkerRole role) const {
  for (const auto& r : roles)
    if (r.role == role) return &r;
  return nullptr;
}

bool HasTopology(const ServeSpec& serve) { return serve.multinode || serve.disagg; }

int GpusPerReplica(const WorkerSpec& w) {
  return std::max(std::max(1, w.tp) * std::max(1, w.pp) * std::max(1, w.pcp_size),
                  std::max(1, w.ep));
}

int GpusPerNodeOf(const std::string& hardware) {
  // Node sizes of the products InferenceX runs (disagg.md §1.3): NVL72 racks are
  // 4-GPU trays; HGX/DGX and AMD platforms hold 8.
  static const std::map<std::string, int> kGpusPerNode = {
      {"gb200", 4},  {"gb300", 4},  {"h100", 8},   {"h200", 8},       {"b200", 8}, {"b300", 8},
      {"mi300x", 8}, {"mi325x", 8}, {"mi355x", 8}, {"rtx6000pro", 8}, {"a100", 8}, {"l40s", 8}};
  auto it = kGpusPerNode.find(hardware);
  return it == kGpusPerNode.end() ? 0 : it->second;
}

StatusOr<Topology> SessionTopology(const ServeSpec& serve) {
  if (!HasTopology(serve)) {
    return Status::InvalidArgument(
        "serve: a single-node server has no topology (serve.multinode and serve.disagg are "
        "false)");
  }
  Topology t;
  t.launch = LaunchPathFor(serve);
  t.router = serve.router_name;
  t.router_policy = serve.router_policy;
  t.kv_connector = serve.kv_p2p_transfer;
  int gpn = serve.gpus_per_node;
  if (gpn == 0) gpn = GpusPerNodeOf(serve.hardware);
  if (gpn <= 0) {
    return Status::InvalidArgument(fmt::format(
        "serve.gpus_per_node: unknown for hardware '{}'; set topology.gpus_per_node (the GPUs "
        "of one node of the runner)",
        serve.hardware));
  }
  t.gpus_per_node = gpn;
  // Decode num_workers 0 is an aggregated session — also in the two InferenceX rows of
  // disagg: true configs that have it (their launchers run them aggregated).
  const bool aggregated = serve.decode.num_workers == 0;
  t.disagg = !aggregated;
  auto add = [&](WorkerRole role, const WorkerSpec& w, std::string_view path) -> Status {
    RoleTopology r;
    r.role = role;
    r.worker = w;
    r.replicas = w.num_workers;
    if (r.replicas < 1) {
      return Status::InvalidArgument(
          fmt::format("{}.num_workers = {}: a role needs at least one replica", path, r.replicas));
    }
    r.gpus_per_replica = GpusPerReplica(w);
    SB_RETURN_IF_ERROR(PlaceRole(path, gpn, &r));
    r.first_node = t.nodes;
    t.nodes += r.nodes;
    r.gpus = CountedGpus(t.launch, aggregated, r, gpn);
    t.roles.push_back(std::move(r));
    return Status::Ok();
  };
  if (aggregated) {
    SB_RETURN_IF_ERROR(add(WorkerRole::kAggregated, serve.prefill, "serve.prefill"));
    t.prefill_gpus = t.roles[0].gpus;
    t.kv_connector.clear();  // no KV moves between aggregated workers
  } else {
    SB_RETURN_IF_ERROR(add(WorkerRole::kPrefill, serve.prefill, "serve.prefill"));
    SB_RETURN_IF_ERROR(add(WorkerRole::kDecode, serve.decode, "serve.decode"));
    t.prefill_gpus = t.roles[0].gpus;
    t.decode_gpus = t.roles[1].gpus;
  }
  return t;
}

std::string DescribeTopology(const Topology& t) {
  std::string out;
  for (const auto& r : t.roles) {
    const char letter = r.role == WorkerRole::kPrefill  ? 'P'
                        : r.role == WorkerRole::kDecode ? 'D'
                                                        : 'A';
    const WorkerSpec& w = r.worker;
    std::string par = fmt::format("TP{}", w.tp);
    if (w.pp > 1) par += fmt::format("PP{}", w.pp);
    if (w.ep > 1) par += fmt::format("EP{}", w.ep);
    if (w.dp_attn) par += "-DPA";
    out += fmt::format("{}{}{}×{}", out.empty() ? "" : " ", r.replicas, letter, par);
  }
  return out;
}

}  // namespace servebench::recipe
