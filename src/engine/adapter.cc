// RenderServerCommand: dispatch to the engine's adapter, the owned-flag check
// shared by all engines, and the container wrap.
#include "engine/adapter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>

#include "engine/adapters_internal.h"

namespace servebench::engine {
namespace {

using internal::RenderContext;

// The ServeSpec field a flag key comes from, for error messages.
std::string FieldForConcept(const std::string& key) {
  static const std::map<std::string, std::string> kFields = {
      {"model", "serve.model"},
      {"host", "the run's host"},
      {"port", "the run's port"},
      {"served_model_name", "serve.served_model_name"},
      {"tensor_parallel", "serve.tp"},
      {"pipeline_parallel", "serve.pp"},
      {"data_parallel", "serve.dp"},
      {"expert_parallel", "serve.ep"},
      {"dp_attention", "serve.dp_attn"},
      {"dp_lm_head", "serve.dp_attn"},
      {"decode_context_parallel", "serve.dcp_size"},
      {"prefill_context_parallel", "serve.pcp_size"},
      {"max_model_len", "serve.max_model_len"},
      {"kv_cache_dtype", "serve.kv_cache_dtype"},
      {"cache_type_k", "serve.kv_cache_dtype"},
      {"cache_type_v", "serve.kv_cache_dtype"},
      {"split_mode", "serve.tp / serve.pp"},
      {"config", "serve settings (servebench writes the config file)"},
      {"backend", "the adapter (always pytorch)"},
  };
  auto it = kFields.find(key);
  if (it != kFields.end()) return it->second;
  return "serve.spec (speculative decoding)";
}

// The owned flag `token` uses, or "" when none. "--x=1" and vLLM's dotted
// "--speculative-config.method" count as uses of "--x" / "--speculative-config".
std::string OwnedFlagUsed(const std::string& token, const std::vector<std::string>& owned) {
  if (token.size() < 2 || token[0] != '-') return "";
  const std::string name = token.substr(0, token.find('='));
  for (const auto& flag : owned) {
    if (name == flag) return flag;
    if (flag.size() > 2 && flag[1] == '-' && name.size() > flag.size() &&
        name.compare(0, flag.size(), flag) == 0 && name[flag.size()] == '.') {
      return flag;
    }
  }
  return "";
}

Status CheckExtras(const recipe::ServeSpec& spec, const EngineFlagTable& table) {
  const std::vector<std::string> owned = table.OwnedFlags();
  for (size_t i = 0; i < spec.extra_args.size(); ++i) {
    const std::string flag = OwnedFlagUsed(spec.extra_args[i], owned);
    if (flag.empty()) continue;
    std::string key;
    for (const auto& [c, f] : table.flags) {
      if (f == flag) key = c;
    }
    return Status::InvalidArgument(
        fmt::format("serve.extra_args[{}] = \"{}\": flag {} is owned by the {} adapter (it renders "
                    "it from {}); "
                    "set that field instead of passing the flag",
                    i, spec.extra_args[i], flag, table.engine, FieldForConcept(key)));
  }
  const std::vector<std::string> owned_env = table.OwnedEnv();
  for (const auto& [name, value] : spec.env) {
    if (std::find(owned_env.begin(), owned_env.end(), name) != owned_env.end()) {
      return Status::InvalidArgument(fmt::format(
          "serve.env.{} = \"{}\": variable {} is owned by the {} adapter (it sets it from "
          "serve.spec synthetic acceptance); set serve.spec instead",
          name, value, name, table.engine));
    }
  }
  if (spec.engine == "sim") {
    for (const auto& [key, value] : spec.sim_options) {
      const std::string token = key.rfind("-", 0) == 0 ? key : "--" + key;
      const std::string flag = OwnedFlagUsed(token, owned);
      if (!flag.empty()) {
        return Status::InvalidArgument(
            fmt::format("serve.sim_options.{}: flag {} is owned by the sim adapter; set the "
                        "ServeSpec field instead",
                        key, flag));
      }
    }
  }
  return Status::Ok();
}

std::string DefaultContainerName(int port) { return fmt::format("servebench-engine-{}", port); }

// Folders of config files, to mount at the same path inside the container.
std::vector<std::string> ConfigFolders(const ServerCommand& command) {
  std::set<std::string> folders;
  for (const auto& file : command.files) {
    auto slash = file.path.rfind('/');
    folders.insert(slash == std::string::npos || slash == 0 ? "." : file.path.substr(0, slash));
  }
  return {folders.begin(), folders.end()};
}

// `env_from` (NAME -> SOURCE, of the recipe field `field`) resolved from servebench's
// environment into `out`'s env, and kept as out->env_from for display and containers.
Status ResolveEnvFrom(const std::map<std::string, std::string>& env_from,
                      const std::map<std::string, std::string>& env, const std::string& field,
                      const RenderOptions& options, ServerCommand* out) {
  for (const auto& [name, source] : env_from) {
    if (env.count(name) != 0) {
      return Status::InvalidArgument(fmt::format(
          "{}.env.{} and {}.env_from.{} are both set; keep one", field, name, field, name));
    }
    std::optional<std::string> value = options.LaunchEnv(source);
    if (value) out->env[name] = *value;
    out->env_from[name] = source;
  }
  return Status::Ok();
}

// What every rendering ends with: serve.env_from resolved from servebench's
// environment (and a verbatim command's auxiliary servers' and router's), serve.prepare,
// and the container wrap.
StatusOr<ServerCommand> Finish(const recipe::ServeSpec& spec, const RenderOptions& options,
                               ServerCommand out) {
  SB_RETURN_IF_ERROR(ResolveEnvFrom(spec.env_from, spec.env, "serve", options, &out));
  // RenderVerbatim renders the auxiliary servers and the router in the recipe's order.
  const recipe::VerbatimCommand& c = spec.command;
  for (size_t i = 0; i < out.auxiliary.size() && i < c.auxiliary.size(); ++i) {
    SB_RETURN_IF_ERROR(ResolveEnvFrom(c.auxiliary[i].env_from, c.auxiliary[i].env,
                                      fmt::format("serve.command.auxiliary[{}]", i), options,
                                      &out.auxiliary[i]));
  }
  if (!out.router.empty()) {
    SB_RETURN_IF_ERROR(ResolveEnvFrom(c.router.env_from, c.router.env, "serve.command.router",
                                      options, &out.router.front()));
  }
  if (!options.profile_dir.empty()) {
    if (const char* var = ProfilerEnvVar(spec.engine)) out.env[var] = options.profile_dir;
  }
  out.prepare = spec.prepare;
  if (options.container.kind != ContainerProfile::Kind::kNone && !spec.image.empty()) {
    // Each auxiliary server in a container of its own from the same image, on the
    // host network as the engine's, named after the engine's so both are removed.
    for (size_t i = 0; i < out.auxiliary.size(); ++i) {
      ContainerProfile profile = options.container;
      profile.name = fmt::format(
          "{}-aux{}", profile.name.empty() ? DefaultContainerName(out.port) : profile.name, i);
      SB_ASSIGN_OR_RETURN(out.auxiliary[i], WrapInContainer(out.auxiliary[i], spec.image, profile));
    }
    // The router likewise (InferenceX runs it inside the engine's container).
    for (auto& router : out.router) {
      ContainerProfile profile = options.container;
      profile.name =
          (profile.name.empty() ? DefaultContainerName(out.port) : profile.name) + "-router";
      SB_ASSIGN_OR_RETURN(router, WrapInContainer(router, spec.image, profile));
    }
    return WrapInContainer(out, spec.image, options.container);
  }
  return out;
}

}  // namespace

bool ParseContainerKind(const std::string& text, ContainerProfile::Kind* kind) {
  using K = ContainerProfile::Kind;
  static const std::map<std::string, K> kKinds = {{"", K::kNone},         {"none", K::kNone},
                                                  {"docker", K::kDocker}, {"podman", K::kPodman},
                                                  {"enroot", K::kEnroot}, {"srun", K::kSrun}};
  auto it = kKinds.find(text);
  if (it == kKinds.end()) return false;
  *kind = it->second;
  return true;
}

bool IsKnownEngine(const std::string& engine) {
  return engine == "vllm" || engine == "sglang" || engine == "trtllm" || engine == "llamacpp" ||
         engine == "sim";
}

const char* ProfilerEnvVar(const std::string& engine) {
  if (engine == "vllm" || engine == "sim") return "VLLM_TORCH_PROFILER_DIR";
  if (engine == "sglang") return "SGLANG_TORCH_PROFILER_DIR";
  return nullptr;
}

std::string FormatDecimal(double value) {
  std::string text = fmt::format("{:.4f}", value);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

StatusOr<ServerCommand> RenderServerCommand(const recipe::ServeSpec& spec,
                                            const RenderOptions& options,
                                            const EngineCatalog& catalog) {
  auto it = catalog.engines.find(spec.engine);
  if (!spec.command.argv.empty()) {
    const EngineFlagTable* table = it == catalog.engines.end() ? nullptr : &it->second;
    SB_ASSIGN_OR_RETURN(ServerCommand out, internal::RenderVerbatim(spec, options, table));
    return Finish(spec, options, std::move(out));
  }
  if (!IsKnownEngine(spec.engine) || it == catalog.engines.end()) {
    return Status::InvalidArgument(fmt::format(
        "serve.engine = \"{}\": unknown engine (known: vllm, sglang, trtllm, llamacpp, sim)",
        spec.engine));
  }
  const EngineFlagTable& table = it->second;
  if (spec.multinode || spec.disagg) {
    return Status::InvalidArgument(
        fmt::format("serve.multinode = {}, serve.disagg = {}: the {} adapter launches single-node "
                    "servers only; "
                    "run multinode/disaggregated recipes with their own launchers (servebench "
                    "matrix exports them)",
                    spec.multinode, spec.disagg, spec.engine));
  }
  if (spec.model.empty()) {
    return Status::InvalidArgument(
        fmt::format("serve.model is empty: the {} adapter needs a model", spec.engine));
  }
  if (spec.tp < 1 || spec.pp < 1 || spec.ep < 1 || spec.dp < 1 || spec.dcp_size < 1 ||
      spec.pcp_size < 1) {
    return Status::InvalidArgument(
        fmt::format("serve parallelism tp={} pp={} ep={} dp={} dcp={} pcp={}: each must be >= 1",
                    spec.tp, spec.pp, spec.ep, spec.dp, spec.dcp_size, spec.pcp_size));
  }
  if (spec.max_model_len < 0) {
    return Status::InvalidArgument(fmt::format(
        "serve.max_model_len = {}: must be >= 0 (0 = engine default)", spec.max_model_len));
  }
  if (options.port < 0 || options.port > 65535) {
    return Status::InvalidArgument(fmt::format("port {}: must be 0..65535", options.port));
  }
  SB_RETURN_IF_ERROR(CheckExtras(spec, table));
  SB_RETURN_IF_ERROR(internal::CheckSpec(spec.spec, spec.engine));

  ServerCommand out;
  out.engine = spec.engine;
  out.host = options.host.empty() ? "127.0.0.1" : options.host;
  out.port = options.port == 0 ? table.default_port : options.port;
  out.readiness_timeout_s =
      spec.readiness_timeout_s > 0 ? spec.readiness_timeout_s : table.readiness_timeout_s;
  out.readiness_poll_ms = table.readiness_poll_ms;
  out.env = spec.env;
  RenderContext ctx{spec, table, options, out.host, out.port};
  if (spec.engine == "vllm") {
    SB_RETURN_IF_ERROR(internal::RenderVllm(ctx, out));
  } else if (spec.engine == "sim") {
    SB_RETURN_IF_ERROR(internal::RenderSim(ctx, out));
  } else if (spec.engine == "sglang") {
    SB_RETURN_IF_ERROR(internal::RenderSglang(ctx, out));
  } else if (spec.engine == "trtllm") {
    SB_RETURN_IF_ERROR(internal::RenderTrtllm(ctx, out));
  } else {
    SB_RETURN_IF_ERROR(internal::RenderLlamacpp(ctx, out));
  }
  if (options.use_launcher && !table.launcher.empty()) {
    out.argv.insert(out.argv.begin(), table.launcher.begin(), table.launcher.end());
  }
  return Finish(spec, options, std::move(out));
}

StatusOr<ServerCommand> RenderServerCommand(const recipe::ServeSpec& spec,
                                            const RenderOptions& options) {
  SB_ASSIGN_OR_RETURN(const EngineCatalog* catalog, DefaultEngineCatalog());
  return RenderServerCommand(spec, options, *catalog);
}

StatusOr<ServerCommand> WrapInContainer(const ServerCommand& command, const std::string& image,
                                        const ContainerProfile& profile) {
  using K = ContainerProfile::Kind;
  if (profile.kind == K::kNone) return command;
  if (image.empty()) {
    return Status::InvalidArgument("serve.image is empty: a container runner needs an image");
  }
  if (command.argv.empty()) return Status::Internal("WrapInContainer: empty argv");
  ServerCommand out = command;
  out.input_files.clear();  // paths inside the image, not on this host
  std::vector<std::string> mounts = profile.mounts;
  const std::string& wd = command.working_dir;
  if (!wd.empty()) {
    if (profile.kind == K::kEnroot) {
      return Status::InvalidArgument(
          fmt::format("the command runs in {} (a verbatim command's folder) and enroot cannot set "
                      "the container's folder; use docker, podman or srun",
                      wd));
    }
    // The command's folder, with its files; where the command expects it.
    const std::string inside = command.container_dir.empty() ? wd : command.container_dir;
    mounts.push_back(wd + ":" + inside);
  }
  for (const auto& folder : ConfigFolders(command)) {
    bool inside = !wd.empty() && (folder == wd || folder.rfind(wd + "/", 0) == 0);
    if (!inside) mounts.push_back(folder + ":" + folder);
  }
  std::vector<std::string>& argv = out.argv;
  argv.clear();
  switch (profile.kind) {
    case K::kDocker:
    case K::kPodman: {
      const std::string tool = profile.kind == K::kDocker ? "docker" : "podman";
      const std::string name =
          profile.name.empty() ? DefaultContainerName(command.port) : profile.name;
      argv = {tool, "run", "--rm", "--init", "--name", name, "--network", "host", "--ipc", "host"};
      argv.insert(argv.end(), profile.run_args.begin(), profile.run_args.end());
      for (const auto& m : mounts) internal::AddFlag(argv, "-v", m);
      // env_from values (a token, a device list) stay out of argv: `-e NAME` passes
      // docker's own, which out.env sets.
      for (const auto& [k, v] : command.env)
        internal::AddFlag(argv, "-e", command.env_from.count(k) ? k : k + "=" + v);
      if (!command.working_dir.empty())
        internal::AddFlag(
            argv, "-w",
            command.container_dir.empty() ? command.working_dir : command.container_dir);
      internal::AddFlag(argv, "--entrypoint", command.argv[0]);
      argv.push_back(image);
      argv.insert(argv.end(), command.argv.begin() + 1, command.argv.end());
      std::map<std::string, std::string> passed;
      for (const auto& [k, source] : command.env_from)
        if (command.env.count(k)) passed[k] = command.env.at(k);
      out.env = passed;
      out.cleanup_argv = {tool, "rm", "-f", name};
      break;
    }
    case K::kEnroot: {
      argv = {"enroot", "start", "--rw"};
      argv.insert(argv.end(), profile.run_args.begin(), profile.run_args.end());
      for (const auto& m : mounts) internal::AddFlag(argv, "--mount", m);
      std::map<std::string, std::string> passed;
      for (const auto& [k, v] : command.env) {
        internal::AddFlag(argv, "--env", command.env_from.count(k) ? k : k + "=" + v);
        if (command.env_from.count(k)) passed[k] = v;
      }
      argv.push_back(image);
      argv.insert(argv.end(), command.argv.begin(), command.argv.end());
      out.env = passed;
      break;
    }
    case K::kSrun: {
      argv = {"srun", "--container-image=" + image, "--no-container-mount-home"};
      if (!command.working_dir.empty())
        argv.push_back("--container-workdir=" + (command.container_dir.empty()
                                                     ? command.working_dir
                                                     : command.container_dir));
      if (!mounts.empty()) {
        std::string joined;
        for (const auto& m : mounts) joined += (joined.empty() ? "" : ",") + m;
        argv.push_back("--container-mounts=" + joined);
      }
      if (!command.env.empty()) {
        // pyxis passes these from srun's environment (which carries out.env) into the container.
        std::string names;
        for (const auto& [k, v] : command.env) names += (names.empty() ? "" : ",") + k;
        argv.push_back("--container-env=" + names);
      }
      argv.insert(argv.end(), profile.run_args.begin(), profile.run_args.end());
      argv.insert(argv.end(), command.argv.begin(), command.argv.end());
      break;
    }
    case K::kNone:
      break;
  }
  return out;
}

}  // namespace servebench::engine
