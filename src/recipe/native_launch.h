// Internal to recipe/: the native keys that say exactly how a server is launched
// (docs/recipes.md, "Verbatim commands"), read at recipe level and in search-space
// entries:
//
//   command:  {argv: [vllm, serve, M, ...], port: 8888, files: [{path, contents}],
//              folder: /workspace, source: "inferencex:benchmarks/...",
//              auxiliary: [{argv: [mooncake_master, --port, "20888"], env: {...}}],
//              router: {argv: [vllm-router, --worker-urls, ...], env: {...}, port: 8888}}
//                                                      run as written, not rendered
//   env_from: {HIP_VISIBLE_DEVICES: ROCR_VISIBLE_DEVICES}   NAME = $SOURCE at launch
//             {MODEL_PATH: {hf_snapshot: org/model}}       NAME = the model's HF snapshot
//   argv items: a string, or {hf_snapshot: org/model}: that folder, at launch
//             (recipe/hub_snapshot.h)
//   prepare:  [[hf, download, org/draft], ...]             run before the engine
//
// Each reader reports every problem to the context and returns false when the key
// was present but wrong; an absent key leaves the output untouched.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "recipe/formats.h"
#include "recipe/point.h"

namespace servebench::recipe {

// `command`: argv (a non-empty list of strings), port (1..65535), files (a list of
// {path, contents}, each path relative and inside the command's folder), folder
// (absolute, optional), source, auxiliary (a list of {argv, env, env_from}: servers
// started before the command, beside it; argv non-empty, env names valid, env_from as
// the serve's, for that process), router ({argv, env, env_from, port}: a router in
// front of it, on a port of its own).
bool ReadVerbatimCommand(const LoadContext& ctx, FieldReader& parent,
                         std::optional<VerbatimCommand>* out);

// `env_from`: a map of variable name -> source variable name into `*out`, or -> a
// {hf_snapshot: REPO} into `*env` as that snapshot's word (recipe/hub_snapshot.h).
bool ReadEnvFrom(const LoadContext& ctx, FieldReader& parent,
                 std::map<std::string, std::string>* out, std::map<std::string, std::string>* env);

// `key` of `r`: a required list of launch words, each a string or {hf_snapshot: REPO}
// (its word); a string spelling a snapshot word is refused. nullopt after reporting.
std::optional<std::vector<std::string>> ReadLaunchWords(const LoadContext& ctx, FieldReader& r,
                                                        const std::string& key);

// `prepare`: a list of commands, each a non-empty list of strings.
bool ReadPrepare(const LoadContext& ctx, FieldReader& parent,
                 std::optional<std::vector<std::vector<std::string>>>* out);

// True for a POSIX environment variable name: [A-Za-z_][A-Za-z0-9_]*.
bool IsEnvName(const std::string& name);

}  // namespace servebench::recipe
