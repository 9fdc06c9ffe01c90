// SessionPlan: every process of one serve session of several processes — auxiliary
// services (etcd, NATS), the prefill/decode (or aggregated) workers, the router or
// frontend the client talks to — each with its command, its node and its GPUs, in
// start order. PlanSession() builds it from a ServeSpec's topology
// (recipe/topology.h) and the stack's data (session_catalog.h); the ServeSession
// (serve_session.h) starts it; --dry-run prints it (FormatSessionPlanForDisplay).
//
// Which stack a ServeSpec runs (disagg.md §2): an srt-slurm row runs Dynamo
// (dynamo-vllm, dynamo-sglang, dynamo-trt: etcd + NATS, Dynamo workers, the Dynamo
// frontend); an amd_utils row sglang-disagg (SGLang workers, sglang-router); a
// native recipe its `framework` when that is a stack, else its engine's own (sim,
// vllm + vllm-router, sglang + sglang-router, trtllm + trtllm-serve disaggregated).
// The router is serve.router_name when set (it must front the engine), else the
// stack's. Worker commands are the engine's single-server rendering (adapter.h) of
// one replica plus the P/D and multi-node flags of sessions.yaml, so parallelism,
// speculative decoding, extras and owned-flag checks are the adapters' own.
// Thread-safe: pure functions of their inputs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/engine_catalog.h"
#include "engine/server_command.h"
#include "engine/session_catalog.h"
#include "recipe/point.h"
#include "recipe/topology.h"

namespace servebench::engine {

enum class ProcessKind { kService, kWorker, kRouter };

// How the session learns that a process is ready (disagg.md §2.2 step 5).
enum class ProcessReadiness {
  kHttp,    // GET /health, then /v1/models answer 200 (workers with an API, routers)
  kHealth,  // GET /health answers 200 (Dynamo workers, on their system port)
  kTcp,     // its port accepts connections (etcd, NATS)
  kLeader,  // a follower of a replica spanning nodes: ready when its leader is
};

struct SessionProcess {
  ProcessKind kind = ProcessKind::kWorker;
  std::string role;   // "etcd", "nats", "prefill", "decode", "aggregated", "router"
  int replica = 0;    // index within the role
  int node_rank = 0;  // rank inside a replica spanning nodes (0 = its leader)
  // Nodes (indices into SessionPlan::nodes) the process runs on: one, except an MPI
  // launch (TensorRT-LLM) over all of its replica's nodes.
  std::vector<int> nodes;
  std::vector<int> gpus;  // GPU indices on each of its nodes (CUDA_VISIBLE_DEVICES)
  int tasks = 1;          // MPI ranks (TensorRT-LLM: one per GPU); 1 otherwise
  ProcessReadiness readiness = ProcessReadiness::kHttp;
  ServerCommand command;  // host/port: where it listens (router: where the client goes)
  // SessionOptions::profile_root set: the folder its profiler writes into (its stack's
  // profiler variable, ProfilerEnvVar in adapter.h, names it), <root>/<Name()>; "" for
  // services, routers (no profiler) and engines without one (TensorRT-LLM, llama.cpp).
  std::string profile_dir;
  // "router", "etcd", "prefill[0]", "decode[1]"; a follower "prefill[0].node1".
  std::string Name() const;
};

struct SessionPlan {
  recipe::Topology topology;
  std::string stack;                      // sessions.yaml stacks.<name>
  std::string router;                     // routers.<name>
  std::vector<std::string> nodes;         // host of each node index
  std::vector<SessionProcess> processes;  // start order: services, workers, router
  // The process the client targets (the router).
  const SessionProcess& entry() const { return processes.back(); }
};

struct SessionOptions {
  // Host (name or IP the other processes reach it at) of each node index; nodes past
  // the end are "node<i>" (what --dry-run shows before an allocation exists).
  std::vector<std::string> node_hosts;
  // The port a process on node `node` listens on, given the stack's default for it
  // (srt-slurm's numbering, disagg.md §2.2). Null: the defaults (--dry-run, nodes of
  // their own); a run whose processes share a host picks free ports.
  std::function<StatusOr<int>(int node, int default_port)> port_for;
  // Base rendering options (servebench binary, container, config folder); each
  // process gets its own config folder below render.work_dir. render.profile_dir is
  // not used: a session's profiler folders come from profile_root.
  RenderOptions render;
  // `servebench run --profile`: every worker process whose engine has a profiler gets
  // <profile_root>/<process name>/ (prefill[0], decode[1], prefill[0].node1) as its
  // profiler directory; "" = no profiling. The caller creates the folders.
  std::string profile_root;
};

// The stack and router `serve` runs with, and every check that needs no ports:
// each worker role is one its engine can play, the KV connector is one the engine
// speaks, the router fronts the engine, the launch path is one servebench runs.
// InvalidArgument naming the field, the value and what is allowed; FailedPrecondition
// for a valid session servebench does not launch (llm-d, TileRT, ATOM rows: their
// own launchers run them, `servebench matrix` exports them).
Status CheckSession(const recipe::ServeSpec& serve, const SessionCatalog& catalog);

// CheckSession over every serve session of several processes among `points` (once
// per session id, in order); what `validate` and `run` report before anything starts.
struct SessionProblem {
  std::string recipe;
  std::string session_id;
  Status status;
};
std::vector<SessionProblem> CheckServeSessions(const std::vector<recipe::Point>& points,
                                               const SessionCatalog& catalog);

StatusOr<SessionPlan> PlanSession(const recipe::ServeSpec& serve, const SessionOptions& options,
                                  const EngineCatalog& engines, const SessionCatalog& sessions);
// Same, with the default catalogues.
StatusOr<SessionPlan> PlanSession(const recipe::ServeSpec& serve, const SessionOptions& options);

// For `servebench run --dry-run`: "# <title>" (none when empty), the topology (roles, GPUs P/D,
// nodes), then per process a comment with its name, node(s) and GPUs and its command as
// FormatCommandForDisplay writes it.
std::string FormatSessionPlanForDisplay(const std::string& title, const SessionPlan& plan);

}  // namespace servebench::engine
