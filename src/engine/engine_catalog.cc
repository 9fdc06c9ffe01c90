#include "engine/engine_catalog.h"

#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

#include "common/atomic_file.h"

#ifndef SERVEBENCH_ENGINE_DATA_SOURCE_DIR
#define SERVEBENCH_ENGINE_DATA_SOURCE_DIR ""
#endif

namespace servebench::engine {
namespace {

// The concepts each adapter renders; the flag table must name every one.
const std::map<std::string, std::vector<std::string>>& RequiredFlags() {
  static const auto* kRequired = new std::map<std::string, std::vector<std::string>>{
      {"vllm",
       {"host", "port", "served_model_name", "tensor_parallel", "pipeline_parallel",
        "data_parallel", "expert_parallel", "decode_context_parallel", "prefill_context_parallel",
        "max_model_len", "kv_cache_dtype", "speculative_config"}},
      {"sglang",
       {"model", "host", "port", "served_model_name", "tensor_parallel", "pipeline_parallel",
        "data_parallel", "expert_parallel", "dp_attention", "dp_lm_head", "max_model_len",
        "kv_cache_dtype", "speculative_algorithm", "speculative_draft_model",
        "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"}},
      {"trtllm",
       {"host", "port", "backend", "config", "tensor_parallel", "pipeline_parallel",
        "expert_parallel", "max_model_len"}},
      {"llamacpp",
       {"model", "host", "port", "served_model_name", "split_mode", "max_model_len", "cache_type_k",
        "cache_type_v", "spec_type", "draft_model", "spec_draft_n_max", "spec_synth_len"}},
      {"sim",
       {"model", "host", "port", "served_model_name", "tensor_parallel", "data_parallel",
        "expert_parallel", "max_model_len", "kv_cache_dtype", "speculative_config"}},
  };
  return *kRequired;
}

const std::map<std::string, std::vector<std::string>>& RequiredEnv() {
  static const auto* kRequired = new std::map<std::string, std::vector<std::string>>{
      {"sglang", {"synthetic_acceptance_length"}},
      {"trtllm", {"forced_accepted_tokens"}},
  };
  return *kRequired;
}

std::string Where(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return file;
  return fmt::format("{}:{}:{}", file, mark.line + 1, mark.column + 1);
}

std::vector<std::string> StringList(const YAML::Node& node) {
  std::vector<std::string> out;
  if (!node) return out;
  if (node.IsScalar()) {
    out.push_back(node.as<std::string>());
    return out;
  }
  for (const auto& item : node) out.push_back(item.as<std::string>());
  return out;
}

std::map<std::string, std::string> StringMap(const YAML::Node& node) {
  std::map<std::string, std::string> out;
  if (!node) return out;
  for (const auto& item : node) out[item.first.as<std::string>()] = item.second.as<std::string>();
  return out;
}

Status ParseFlags(const YAML::Node& root, const std::string& file, EngineCatalog& catalog) {
  const YAML::Node engines = root["engines"];
  if (!engines || !engines.IsMap()) {
    return Status::InvalidArgument(fmt::format("{}: `engines` is missing or not a map", file));
  }
  for (const auto& item : engines) {
    EngineFlagTable table;
    table.engine = item.first.as<std::string>();
    const YAML::Node& node = item.second;
    const std::string where = Where(file, node);
    if (RequiredFlags().count(table.engine) == 0) {
      return Status::InvalidArgument(
          fmt::format("{}: engines.{}: unknown engine (known: vllm, sglang, trtllm, llamacpp, sim)",
                      where, table.engine));
    }
    table.command = StringList(node["command"]);
    table.launcher = StringList(node["launcher"]);
    table.default_port = node["default_port"].as<int>(0);
    table.readiness_timeout_s = node["readiness_timeout_s"].as<double>(0);
    table.readiness_poll_ms = node["readiness_poll_ms"].as<int>(1000);
    table.flags = StringMap(node["flags"]);
    table.also_owned = StringList(node["also_owned"]);
    table.env = StringMap(node["env"]);
    table.synthetic_env = StringMap(node["synthetic_env"]);
    if (table.command.empty()) {
      return Status::InvalidArgument(
          fmt::format("{}: engines.{}.command is empty", where, table.engine));
    }
    if (table.readiness_timeout_s <= 0 || table.readiness_poll_ms <= 0) {
      return Status::InvalidArgument(
          fmt::format("{}: engines.{}: readiness_timeout_s and readiness_poll_ms must be > 0",
                      where, table.engine));
    }
    for (const auto& key : RequiredFlags().at(table.engine)) {
      if (table.flags.count(key) == 0) {
        return Status::InvalidArgument(
            fmt::format("{}: engines.{}.flags: `{}` is missing; the {} adapter renders it (add "
                        "`{}: --flag-name`)",
                        where, table.engine, key, table.engine, key));
      }
    }
    auto env_required = RequiredEnv().find(table.engine);
    if (env_required != RequiredEnv().end()) {
      for (const auto& key : env_required->second) {
        if (table.env.count(key) == 0) {
          return Status::InvalidArgument(
              fmt::format("{}: engines.{}.env: `{}` is missing", where, table.engine, key));
        }
      }
    }
    for (const auto& flag : table.OwnedFlags()) {
      if (flag.size() < 2 || flag[0] != '-') {
        return Status::InvalidArgument(fmt::format(
            "{}: engines.{}: flag \"{}\" must start with '-'", where, table.engine, flag));
      }
    }
    catalog.engines[table.engine] = std::move(table);
  }
  for (const auto& [name, unused] : RequiredFlags()) {
    if (catalog.engines.count(name) == 0) {
      return Status::InvalidArgument(fmt::format("{}: engines.{} is missing", file, name));
    }
  }
  return Status::Ok();
}

Status ParseSignatures(const YAML::Node& root, const std::string& file, EngineCatalog& catalog) {
  const YAML::Node list = root["signatures"];
  if (!list || !list.IsSequence() || list.size() == 0) {
    return Status::InvalidArgument(fmt::format("{}: `signatures` is missing or empty", file));
  }
  for (const auto& node : list) {
    FailureSignature sig;
    sig.failure_class = node["class"].as<std::string>("");
    sig.match = StringList(node["match"]);
    sig.near = StringList(node["near"]);
    sig.near_lines = node["near_lines"].as<int>(30);
    sig.secondary = node["secondary"].as<bool>(false);
    sig.meaning = node["meaning"].as<std::string>("");
    const std::string where = Where(file, node);
    if (sig.failure_class.empty()) {
      return Status::InvalidArgument(fmt::format("{}: signature without `class`", where));
    }
    if (sig.match.empty()) {
      return Status::InvalidArgument(
          fmt::format("{}: signature {} has no `match` substrings", where, sig.failure_class));
    }
    for (const auto& m : sig.match) {
      if (m.empty()) {
        return Status::InvalidArgument(
            fmt::format("{}: signature {} has an empty `match` string", where, sig.failure_class));
      }
    }
    catalog.signatures.signatures.push_back(std::move(sig));
  }
  catalog.signatures.situations = StringMap(root["situations"]);
  for (const char* name :
       {"died_before_ready", "readiness_timeout", "died_during_run", "start_failed"}) {
    if (catalog.signatures.situations.count(name) == 0) {
      return Status::InvalidArgument(
          fmt::format("{}: situations.{} is missing (the class for that situation)", file, name));
    }
  }
  return Status::Ok();
}

std::string ExecutableDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  return exe.parent_path().string();
}

}  // namespace

const std::string& EngineFlagTable::Flag(std::string_view key) const {
  static const std::string kEmpty;
  auto it = flags.find(std::string(key));
  return it == flags.end() ? kEmpty : it->second;
}

const std::string& EngineFlagTable::Env(std::string_view key) const {
  static const std::string kEmpty;
  auto it = env.find(std::string(key));
  return it == env.end() ? kEmpty : it->second;
}

std::vector<std::string> EngineFlagTable::OwnedFlags() const {
  std::set<std::string> owned(also_owned.begin(), also_owned.end());
  for (const auto& [key, flag] : flags) owned.insert(flag);
  return {owned.begin(), owned.end()};
}

std::vector<std::string> EngineFlagTable::OwnedEnv() const {
  std::set<std::string> owned;
  for (const auto& [key, var] : env) owned.insert(var);
  for (const auto& [var, value] : synthetic_env) owned.insert(var);
  return {owned.begin(), owned.end()};
}

StatusOr<EngineCatalog> ParseEngineCatalog(std::string_view flags_yaml,
                                           std::string_view signatures_yaml,
                                           const std::string& origin) {
  EngineCatalog catalog;
  catalog.origin = origin;
  const std::string flags_file = origin + "/flags.yaml";
  const std::string sig_file = origin + "/failure_signatures.yaml";
  try {
    SB_RETURN_IF_ERROR(ParseFlags(YAML::Load(std::string(flags_yaml)), flags_file, catalog));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(fmt::format("{}: {}", flags_file, e.what()));
  }
  try {
    SB_RETURN_IF_ERROR(
        ParseSignatures(YAML::Load(std::string(signatures_yaml)), sig_file, catalog));
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(fmt::format("{}: {}", sig_file, e.what()));
  }
  return catalog;
}

StatusOr<EngineCatalog> LoadEngineCatalog(const std::string& dir) {
  SB_ASSIGN_OR_RETURN(std::string flags, ReadFile(dir + "/flags.yaml", 1 << 20));
  SB_ASSIGN_OR_RETURN(std::string sigs, ReadFile(dir + "/failure_signatures.yaml", 1 << 20));
  return ParseEngineCatalog(flags, sigs, dir);
}

std::vector<std::string> EngineDataSearchPath() {
  std::vector<std::string> path;
  if (const char* env = std::getenv("SERVEBENCH_DATA_DIR"); env != nullptr && *env != '\0') {
    path.push_back(std::string(env) + "/engine");
  }
  const std::string exe_dir = ExecutableDir();
  if (!exe_dir.empty()) {
    path.push_back(exe_dir + "/data/engine");
    path.push_back(exe_dir + "/../share/servebench/engine");
  }
  if (std::string_view(SERVEBENCH_ENGINE_DATA_SOURCE_DIR).size() > 0) {
    path.push_back(SERVEBENCH_ENGINE_DATA_SOURCE_DIR);
  }
  return path;
}

StatusOr<const EngineCatalog*> DefaultEngineCatalog() {
  static std::mutex mu;
  static const EngineCatalog* cached = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (cached != nullptr) return cached;
  std::string tried;
  for (const auto& dir : EngineDataSearchPath()) {
    std::error_code ec;
    if (!std::filesystem::exists(dir + "/flags.yaml", ec) ||
        !std::filesystem::exists(dir + "/failure_signatures.yaml", ec)) {
      tried += (tried.empty() ? "" : ", ") + dir;
      continue;
    }
    SB_ASSIGN_OR_RETURN(EngineCatalog catalog, LoadEngineCatalog(dir));
    cached = new EngineCatalog(std::move(catalog));
    return cached;
  }
  return Status::NotFound(
      fmt::format("engine data (flags.yaml, failure_signatures.yaml) not found; tried: {}; "
                  "set SERVEBENCH_DATA_DIR to the folder holding engine/",
                  tried));
}

}  // namespace servebench::engine
