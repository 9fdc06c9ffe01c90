#include "engine/engine_catalog.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>

#include "common/atomic_file.h"
#include "config/config_file.h"
#include "config/field_reader.h"

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

using config::FieldReader;
using config::LoadContext;
using config::YNode;

std::map<std::string, std::string> ToMap(
    const std::optional<std::vector<std::pair<std::string, std::string>>>& pairs) {
  std::map<std::string, std::string> out;
  if (pairs) out.insert(pairs->begin(), pairs->end());
  return out;
}

void ReadFlagTable(const LoadContext& ctx, const std::string& path, const YNode& node,
                   EngineFlagTable& table) {
  FieldReader r(ctx, node, path,
                {"command", "launcher", "default_port", "readiness_timeout_s", "readiness_poll_ms",
                 "flags", "also_owned", "env", "synthetic_env"});
  table.command = r.StringList("command", /*required=*/true).value_or(table.command);
  table.launcher = r.StringList("launcher").value_or(table.launcher);
  table.default_port = static_cast<int>(r.Int("default_port").value_or(table.default_port));
  table.readiness_timeout_s = r.Double("readiness_timeout_s", true).value_or(1);
  table.readiness_poll_ms = static_cast<int>(r.Int("readiness_poll_ms").value_or(1000));
  table.flags = ToMap(r.StringMap("flags", true));
  table.also_owned = r.StringList("also_owned").value_or(table.also_owned);
  table.env = ToMap(r.StringMap("env"));
  table.synthetic_env = ToMap(r.StringMap("synthetic_env"));
  if (!r.valid()) return;
  if (r.Has("command") && table.command.empty()) r.ErrorAt("command", "is empty; name the argv");
  if (table.readiness_timeout_s <= 0) r.ErrorAt("readiness_timeout_s", "must be > 0 (seconds)");
  if (table.readiness_poll_ms <= 0) r.ErrorAt("readiness_poll_ms", "must be > 0 (milliseconds)");
  if (r.Has("flags")) {
    for (const auto& key : RequiredFlags().at(table.engine)) {
      if (table.flags.count(key) == 0) {
        r.ErrorAt("flags", fmt::format("`{}` is missing; the {} adapter renders it (add "
                                       "`{}: --flag-name`)",
                                       key, table.engine, key));
      }
    }
  }
  if (auto env_required = RequiredEnv().find(table.engine); env_required != RequiredEnv().end()) {
    for (const auto& key : env_required->second) {
      if (table.env.count(key) == 0) {
        r.ErrorAt("env", fmt::format("`{}` is missing; the {} adapter sets it (add `{}: VARIABLE`)",
                                     key, table.engine, key));
      }
    }
  }
  for (const auto& flag : table.OwnedFlags()) {
    if (flag.size() < 2 || flag[0] != '-') {
      r.ErrorAt("flags", fmt::format("flag \"{}\" must start with '-'", flag));
    }
  }
}

void ReadFlags(const LoadContext& ctx, const YNode& root, EngineCatalog& catalog) {
  FieldReader file(ctx, root, "", {"version", "engines"}, "top-level key");
  file.Int("version");
  const YNode* engines = file.Get("engines");
  if (engines == nullptr) return file.Missing("engines");
  if (!engines->IsMap()) return file.ErrorAt("engines", "is not a map of engine: flag table");
  std::vector<std::string> known;
  for (const auto& [name, unused] : RequiredFlags()) known.push_back(name);
  for (const auto& [name, node] : engines->entries) {
    const std::string path = "engines." + name.scalar;
    if (RequiredFlags().count(name.scalar) == 0) {
      ctx.Error(name, path,
                fmt::format("unknown engine; known: {}{}", config::JoinAllowed(known),
                            config::DidYouMean(name.scalar, known)));
      continue;
    }
    EngineFlagTable table;
    table.engine = name.scalar;
    ReadFlagTable(ctx, path, node, table);
    catalog.engines[table.engine] = std::move(table);
  }
  for (const auto& name : known) {
    if (catalog.engines.count(name) == 0) {
      ctx.Error(*engines, "engines." + name, "is missing; every adapter needs its flag table");
    }
  }
}

void ReadSignatures(const LoadContext& ctx, const YNode& root, EngineCatalog& catalog) {
  FieldReader file(ctx, root, "", {"version", "signatures", "situations"}, "top-level key");
  file.Int("version");
  const YNode* list = file.Get("signatures");
  if (list == nullptr) {
    file.Missing("signatures");
  } else if (!list->IsSequence() || list->items.empty()) {
    file.ErrorAt("signatures", "must be a non-empty list of signatures");
  } else {
    for (size_t i = 0; i < list->items.size(); ++i) {
      FieldReader r(ctx, list->items[i], config::IndexPath("signatures", i),
                    {"class", "match", "near", "near_lines", "secondary", "meaning"});
      FailureSignature sig;
      const std::string class_name =
          r.String("class", /*required=*/true, /*non_empty=*/true).value_or("");
      sig.match = r.StringList("match").value_or(sig.match);
      sig.near = r.StringList("near").value_or(sig.near);
      sig.near_lines = static_cast<int>(r.PositiveInt("near_lines").value_or(30));
      sig.secondary = r.Bool("secondary").value_or(false);
      sig.meaning = r.String("meaning").value_or("");
      if (!r.valid()) continue;
      // One vocabulary for failures: a class outside its grammar never reaches a record.
      StatusOr<FailureClass> parsed = FailureClass::Parse(class_name);
      if (!parsed.ok()) {
        r.ErrorAt("class", parsed.status().message());
        continue;
      }
      sig.failure_class = *parsed;
      if (sig.match.empty()) {
        ctx.Error(list->items[i], r.path(),
                  fmt::format("signature {} has no `match` substrings", class_name));
      }
      for (const auto& m : sig.match) {
        if (m.empty()) {
          r.ErrorAt("match", fmt::format("signature {} has an empty `match` string", class_name));
        }
      }
      catalog.signatures.signatures.push_back(std::move(sig));
    }
  }
  for (const auto& [name, class_name] : ToMap(file.StringMap("situations", true))) {
    StatusOr<FailureClass> parsed = FailureClass::Parse(class_name);
    if (!parsed.ok()) {
      file.ErrorAt("situations", fmt::format("`{}`: {}", name, parsed.status().message()));
      continue;
    }
    catalog.signatures.situations[name] = *parsed;
  }
  if (!file.Has("situations")) return;
  for (const char* name : {"died_before_ready", "readiness_timeout", "died_during_run",
                           "start_failed", "requests_failed", "input_file_missing", "port_held"}) {
    if (catalog.signatures.situations.count(name) == 0) {
      file.ErrorAt("situations",
                   fmt::format("`{}` is missing (the class for that situation)", name));
    }
  }
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
  SB_RETURN_IF_ERROR(config::ReadConfigText(
      flags_yaml, origin + "/flags.yaml",
      [&](const LoadContext& ctx, const YNode& root) { ReadFlags(ctx, root, catalog); }));
  SB_RETURN_IF_ERROR(config::ReadConfigText(
      signatures_yaml, origin + "/failure_signatures.yaml",
      [&](const LoadContext& ctx, const YNode& root) { ReadSignatures(ctx, root, catalog); }));
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
