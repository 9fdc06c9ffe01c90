// SessionCatalog: data/engine/sessions.yaml — what serve sessions of several processes
// are made of: which worker roles each engine can play and the KV connectors it
// speaks (with the flags for them), the routers/frontends and services a session
// may run, and the stacks InferenceX launches (engine + router + services + worker
// command). Loaded and validated once from the folder the engine catalogue came
// from (engine_catalog.h); read-only afterwards, so any thread may read it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace servebench::engine {

// engines.<name>: one worker engine's P/D vocabulary.
struct SessionEngine {
  std::string name;
  std::vector<std::string> roles;                 // "prefill", "decode", "aggregated"
  std::map<std::string, std::string> connectors;  // servebench name -> the engine's name
  std::map<std::string, std::string> kv_roles;    // vLLM: role -> kv_role
  std::vector<std::string> kv_both;               // vLLM: connectors written kv_both
  std::map<std::string, std::string> flags;       // key -> flag
  std::map<std::string, std::string> env;         // key -> variable
  bool CanPlay(std::string_view role) const;
  // The flag for `key`; the loader checked the ones the renderer uses ("" if absent).
  const std::string& Flag(std::string_view key) const;
};

// routers.<name>: a router or frontend in front of the workers.
struct SessionRouter {
  std::string name;
  std::vector<std::string> aliases;  // names InferenceX rows use ("dynamo-router")
  std::vector<std::string> command;  // the sim's is put after the servebench binary
  std::vector<std::string> engines;  // worker engines it can front
  std::map<std::string, std::string> flags;
  std::string pd_flag;                        // put first when disaggregated
  bool prefill_takes_bootstrap_port = false;  // "--prefill URL PORT" (SGLang)
  bool config_file = false;                   // trtllm-serve disaggregated -c FILE
  bool discovers_workers = false;             // Dynamo: workers register themselves
  const std::string& Flag(std::string_view key) const;
};

// services.<name>: an auxiliary process (etcd, NATS).
struct SessionService {
  std::string name;
  std::vector<std::string> command;  // {host} and {port} are filled in
  int port = 0;
  std::map<std::string, std::string> env_for_workers;  // added to every worker and router
};

// stacks.<name>: what one InferenceX framework (or a native engine) launches.
struct SessionStack {
  std::string name;
  std::string engine;  // worker engine: vllm, sglang, trtllm, sim
  std::string router;  // routers.<name>
  std::vector<std::string> services;
  std::vector<std::string> router_args;
  std::vector<std::string> worker_args;
  // Dynamo: replaces the engine's command up to its model (the model follows).
  std::vector<std::string> worker_command;
  std::vector<std::string> worker_launcher;
  std::map<std::string, std::string> worker_flags;
  int router_port = 8000;  // srt-slurm's public frontend port
  int worker_port = 0;     // first worker HTTP port on a node; 0 = srt-slurm's 6100 + 32·k
};

struct SessionCatalog {
  std::map<std::string, SessionEngine> engines;
  std::map<std::string, SessionRouter> routers;
  std::map<std::string, SessionService> services;
  std::map<std::string, SessionStack> stacks;
  std::string origin;

  // The router called `name` or one of its aliases; nullptr when none.
  const SessionRouter* FindRouter(const std::string& name) const;
};

// Parses and validates sessions.yaml: every stack names a known engine, router and
// services; every router fronts known engines; roles are prefill/decode/aggregated.
// InvalidArgument naming the key, the value and what is allowed.
StatusOr<SessionCatalog> ParseSessionCatalog(std::string_view yaml, const std::string& origin);

// <folder of DefaultEngineCatalog()>/sessions.yaml, loaded once (thread-safe).
StatusOr<const SessionCatalog*> DefaultSessionCatalog();

}  // namespace servebench::engine
