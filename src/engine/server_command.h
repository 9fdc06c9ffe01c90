// ServerCommand: what an engine adapter renders from a ServeSpec — the argv, the
// environment added to servebench's own, config files to write first, and what the
// supervisor needs to know (address, readiness deadline). Plain values.
#pragma once

#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace servebench::engine {

// A file the engine reads (TensorRT-LLM's YAML config). The supervisor writes it
// before starting the engine; --dry-run prints it.
struct ConfigFile {
  std::string path;
  std::string contents;
};

// How a runner wraps the engine in a container (from the runner profile).
struct ContainerProfile {
  enum class Kind { kNone, kDocker, kPodman, kEnroot, kSrun };
  Kind kind = Kind::kNone;
  // Added to the container command before the image (docker/podman: e.g. "--gpus",
  // "all" on NVIDIA or "--device", "/dev/kfd", ... on AMD; srun: "--nodes=1", ...).
  std::vector<std::string> run_args;
  // host:container bind mounts (e.g. the Hugging Face cache). The folder of any
  // config file is mounted at the same path automatically.
  std::vector<std::string> mounts;
  // docker/podman container name; the supervisor removes it on stop ("rm -f").
  // Empty: "servebench-engine-<port>".
  std::string name;
};

// "docker", "podman", "enroot", "srun" (or "none"/"" for none) -> Kind.
// False when `text` is none of these.
bool ParseContainerKind(const std::string& text, ContainerProfile::Kind* kind);

// Inputs of a rendering beyond the ServeSpec.
struct RenderOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0 = the engine's default port from its flag table
  // Folder for generated config files (TensorRT-LLM YAML); the run passes the
  // session's folder under --out.
  std::string work_dir = ".";
  // Path of the servebench binary for the sim engine; empty = this process's binary.
  std::string servebench_bin;
  ContainerProfile container;
  // The highest concurrency the session's points ask for (0 = unknown). llama.cpp
  // renders it as -np (its parallel slots) and sizes -c so each slot holds the
  // ServeSpec's max_model_len; other engines schedule dynamically and ignore it.
  int max_concurrency = 0;
  // Put the engine's `launcher` from flags.yaml before its command (trtllm: InferenceX's
  // `mpirun -n 1 --oversubscribe --allow-run-as-root`). Ignored for engines without one.
  bool use_launcher = false;
  // `servebench run --profile`: the folder the engine's profiler writes its traces
  // into, set as the stack's profiler variable (ProfilerEnvVar, adapter.h); "" = off.
  std::string profile_dir;
  // Reads servebench's environment for serve.env_from; null = the process's (getenv).
  std::function<std::optional<std::string>(const std::string& name)> lookup_env;

  // servebench's variable `name` at launch, through lookup_env; nullopt when unset.
  std::optional<std::string> LaunchEnv(const std::string& name) const {
    if (lookup_env) return lookup_env(name);
    const char* v = std::getenv(name.c_str());
    return v == nullptr ? std::nullopt : std::optional<std::string>(v);
  }
};

// A file on this host that the engine reads at startup (the llama.cpp GGUF), with
// the recipe field that named it; checked when the engine exits before readiness.
struct InputFile {
  std::string path;
  std::string field;  // "serve.model", "serve.spec.draft_model"
};

struct ServerCommand {
  std::string engine;                      // adapter that rendered it
  std::vector<std::string> argv;           // argv[0] is looked up on PATH
  std::map<std::string, std::string> env;  // added to (and overriding) servebench's env
  // False: `env` is the whole environment, nothing of servebench's is inherited
  // (capture/ runs launch scripts in a controlled environment). Adapters leave it true.
  bool inherit_environment = true;
  std::vector<ConfigFile> files;  // written before start
  // The engine's current folder; empty = servebench's. Verbatim commands run in the
  // work dir, where their files (named relative to it) are written.
  std::string working_dir;
  // Where working_dir must appear inside the container (a verbatim command's
  // folder, InferenceX's /workspace); empty = at its own path.
  std::string container_dir;
  // serve.env_from as NAME -> SOURCE, for display: `env` already holds NAME when
  // SOURCE was set at rendering.
  std::map<std::string, std::string> env_from;
  // Run in order, each to completion, before the engine starts (serve.prepare), with
  // servebench's environment plus `env`.
  std::vector<std::vector<std::string>> prepare;
  std::vector<InputFile> input_files;  // read by the engine; empty in a container
  std::string host;                    // where readiness and the client connect
  int port = 0;
  // The engine serves https:// (e.g. vLLM with --ssl-certfile): readiness probes
  // and the load client connect with TLS.
  bool tls = false;
  double readiness_timeout_s = 0;  // recipe's, else the adapter default
  int readiness_poll_ms = 1000;
  // Run after the engine stopped (docker/podman "rm -f NAME"); empty when none.
  std::vector<std::string> cleanup_argv;
  // Servers the engine needs beside it (a verbatim command's serve.command.auxiliary:
  // InferenceX's mooncake_master, lmcache server), each a whole command of its own
  // (same folder, same container image, no readiness probe: it has no HTTP API).
  // Started in order before the engine, each under its own supervisor, watched with
  // it and stopped after it. Adapters leave it empty.
  std::vector<ServerCommand> auxiliary;
  // The router in front of the engine (a verbatim command's serve.command.router:
  // InferenceX's vllm-router, sglang_router), at most one; empty for most. Started once
  // the engine is ready, under its own supervisor and with its own readiness probe
  // (host/port: where the client goes, BaseUrl(router[0])), stopped before the engine.
  std::vector<ServerCommand> router;
};

// Where the client sends the load: the router's address when one fronts the engine,
// else the engine's own.
inline const ServerCommand& LoadTarget(const ServerCommand& command) {
  return command.router.empty() ? command : command.router.front();
}

// "http(s)://host:port": where readiness probes and the load client connect.
inline std::string BaseUrl(const ServerCommand& command) {
  return (command.tls ? "https://" : "http://") + command.host + ":" + std::to_string(command.port);
}

}  // namespace servebench::engine
