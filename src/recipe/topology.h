// Topology: the shape of one serve session of several processes, derived from a
// ServeSpec — which worker roles run (prefill and decode, or aggregated workers),
// how many replicas of each, the GPUs one replica takes, the nodes each role
// occupies, and the GPUs InferenceX counts per role (P and D of its result files,
// ../shared/reference/disagg.md §1.3 and §3). The one place that counts a serve
// session's GPUs: records, per-GPU throughput, validation and the engine's process
// plan (engine/session_plan.h) all read it from here.
//
// Placement follows srt-slurm (disagg.md §2.2): prefill nodes first, then decode
// nodes; a replica that needs a node or more starts on a node boundary and spans
// GPUs / gpus_per_node whole nodes; smaller replicas share a node (GPUs disjoint),
// gpus_per_node / GPUs of them per node. The router and any services run on the
// first node and take no GPU.
// Pure functions of their input; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "recipe/point.h"

namespace servebench::recipe {

enum class WorkerRole { kPrefill, kDecode, kAggregated };

// "prefill", "decode", "aggregated": the spelling in records, labels and logs.
std::string_view WorkerRoleName(WorkerRole role);

// Who launches the session, which decides how its GPUs are counted (disagg.md §3).
enum class LaunchPath {
  kServebench,  // native recipes: servebench's own supervisor
  kSrtSlurm,    // dynamo-vllm, dynamo-sglang, dynamo-trt, vllm (multinode)
  kAmdUtils,    // sglang-disagg, atom-disagg
  kLlmD,        // llmd-vllm
  kTileRt,      // tilert
};
std::string_view LaunchPathName(LaunchPath path);  // "servebench", "srt-slurm", ...
// InferenceX's rule "framework selects the launch path" (disagg.md §1.1); a native
// recipe (framework = engine, or empty) is kServebench.
LaunchPath LaunchPathFor(const ServeSpec& serve);

// One worker role of the session.
struct RoleTopology {
  WorkerRole role = WorkerRole::kPrefill;
  WorkerSpec worker;          // parallelism of one replica, as in the Point
  int replicas = 0;           // engines of this role
  int gpus_per_replica = 0;   // GpusPerReplica(worker)
  int nodes_per_replica = 1;  // nodes one replica spans (1 when it shares a node)
  int replicas_per_node = 1;  // > 1 when replicas share a node
  int nodes = 0;              // nodes the role occupies (first_node .. first_node+nodes-1)
  int first_node = 0;         // index of its first node in the session's node list
  int gpus = 0;               // GPUs of the role as its launcher counts them (P or D)
  int gpus_used() const { return replicas * gpus_per_replica; }
};

struct Topology {
  LaunchPath launch = LaunchPath::kServebench;
  bool disagg = false;
  int gpus_per_node = 0;
  std::vector<RoleTopology> roles;  // prefill then decode, or the aggregated workers
  std::string router;               // serve.router_name; "" = the stack's default router
  std::string router_policy;        // "" = the router's default
  std::string kv_connector;         // serve.kv_p2p_transfer; "" when aggregated
  int nodes = 0;                    // worker nodes of the session (its allocation)
  // P and D as InferenceX counts them (disagg.md §3): aggregated sessions have P = G, D = 0.
  int prefill_gpus = 0, decode_gpus = 0;
  int total_gpus() const { return prefill_gpus + decode_gpus; }
  // The role, or nullptr when the session has none.
  const RoleTopology* Find(WorkerRole role) const;
};

// True for a serve session of several processes (serve.multinode or serve.disagg);
// false for one single-node server, which has no Topology.
bool HasTopology(const ServeSpec& serve);

// GPUs one replica takes: max(tp × pp × pcp_size, ep). vLLM rows write DEP8 as
// `tp: 1, ep: 8` (8 GPUs); DCP reuses the TP GPUs (disagg.md §1.3, metrics.md §6).
int GpusPerReplica(const WorkerSpec& worker);

// GPUs per node of a hardware name (gb200/gb300: 4; h100, h200, b200, b300, mi300x,
// mi325x, mi355x, rtx6000pro: 8; disagg.md §1.3); 0 when unknown.
int GpusPerNodeOf(const std::string& hardware);

// The topology of `serve`. InvalidArgument, naming the field, when it has none
// (HasTopology false), a role has no replica, a replica does not tile nodes (it must
// divide a node or be a whole number of them), a role's declared nodes cannot hold
// its GPUs, or the GPUs per node are unknown.
StatusOr<Topology> SessionTopology(const ServeSpec& serve);

// "1P×TP2 2D×TP2" / "2A×TP4": the topology in a few characters, for labels and logs.
std::string DescribeTopology(const Topology& topology);

}  // namespace servebench::recipe
