// Internal to engine/: the pieces PlanSession (session_plan.cc) assembles. Each
// Render* function turns one planned process into its command for the session's
// stack: workers (session_workers.cc) from the engine adapters' one-replica rendering
// plus the P/D and multi-node flags of sessions.yaml; routers and services
// (session_routers.cc) from their tables. Not thread-safe per context; pure otherwise.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/engine_catalog.h"
#include "engine/session_catalog.h"
#include "engine/session_plan.h"
#include "recipe/point.h"
#include "recipe/topology.h"

namespace servebench::engine::internal {

// Ports on each node, numbered as srt-slurm numbers them (disagg.md §2.2) unless the
// caller's port_for picks others (a run whose processes share a host).
class PortAllocator {
 public:
  PortAllocator(const SessionOptions& options, int worker_port)
      : options_(options), worker_port_(worker_port > 0 ? worker_port : 6100) {}
  // Worker HTTP 6100 (or the stack's) + 32·k, bootstrap 7200 + k, DP RPC 8400 + k: per node.
  StatusOr<int> Http(int node) { return Take(node, worker_port_ + 32 * http_[node]++); }
  StatusOr<int> Bootstrap(int node) { return Take(node, 7200 + bootstrap_[node]++); }
  StatusOr<int> DpRpc(int node) { return Take(node, 8400 + dp_rpc_[node]++); }
  // NIXL side channel 5400 + block and Dynamo's system port 7500 + i: global.
  StatusOr<int> NixlBlock(int node, int size) {
    int base = 5400 + nixl_;
    nixl_ += size;
    return Take(node, base);
  }
  StatusOr<int> DynamoSystem(int node) { return Take(node, 7500 + dyn_system_++); }
  // A fixed default (the router's, etcd 2379, SGLang dist-init 8300).
  StatusOr<int> Fixed(int node, int port) { return Take(node, port); }

 private:
  StatusOr<int> Take(int node, int default_port) {
    if (!options_.port_for) return default_port;
    return options_.port_for(node, default_port);
  }
  const SessionOptions& options_;
  int worker_port_;
  std::map<int, int> http_, bootstrap_, dp_rpc_;
  int nixl_ = 0, dyn_system_ = 0;
};

struct SessionContext {
  const recipe::ServeSpec& serve;
  const recipe::Topology& topology;
  const SessionStack& stack;
  const SessionEngine& engine;
  const SessionRouter& router;
  const EngineCatalog& engines;
  const SessionCatalog& sessions;
  const SessionOptions& options;
  std::vector<std::string> nodes;                   // host per node index
  std::map<std::string, std::string> services_env;  // ETCD_ENDPOINTS, NATS_SERVER, ...
  PortAllocator ports;
  // Ports one replica's processes share (its leader allocates them), by
  // "<role>/<replica>/<purpose>".
  std::map<std::string, int> replica_ports;
};

// One worker process to render: placement is set, the command is not.
struct WorkerSlot {
  const recipe::RoleTopology* role = nullptr;
  int replica = 0;
  int node_rank = 0;
  int replica_nodes = 1;   // nodes of the whole replica
  int leader_node = 0;     // the replica's first node
  std::vector<int> nodes;  // this process's nodes
  std::vector<int> gpus;   // on each node
  int tasks = 1;
};

// Appends the process(es) of one worker slot (with its command) to `out`. Workers
// a router must list get `command.host`/`port` set; prefill workers of a stack whose
// router takes a bootstrap port record it in `bootstrap_ports` (by process index).
Status RenderWorker(SessionContext& ctx, const WorkerSlot& slot, std::vector<SessionProcess>* out,
                    std::map<size_t, int>* bootstrap_ports);

// The services of the stack (etcd, NATS) on node 0; fills ctx.services_env.
Status RenderServices(SessionContext& ctx, std::vector<SessionProcess>* out);

// The router in front of `workers` (the processes already planned).
StatusOr<SessionProcess> RenderRouter(SessionContext& ctx, const std::vector<SessionProcess>& all,
                                      const std::map<size_t, int>& bootstrap_ports);

// "http://host:port" of a planned process.
std::string UrlOf(const SessionProcess& p);

// The servebench binary that runs `sim` (options' or this process's).
std::string ServebenchBinary(const RenderOptions& options);

}  // namespace servebench::engine::internal
