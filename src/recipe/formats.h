// The three recipe formats and runners.yaml, each turned into the Recipe model
// (recipe_model.h). Internal to recipe/: callers use recipe.h's LoadRecipes, which
// detects the format of each file and calls one of these. Each loader reports every
// problem it finds to ctx.diagnostics and returns the recipes it could build.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "config/field_reader.h"
#include "config/yaml_tree.h"
#include "recipe/recipe_model.h"

namespace servebench::recipe {

// The strict YAML reading every format shares (config/).
using config::DidYouMean;
using config::EditDistance;
using config::FieldReader;
using config::IndexPath;
using config::JoinAllowed;
using config::JoinPath;
using config::LoadContext;
using config::LoadYamlFile;
using config::ParseYamlText;
using config::YamlLimits;
using config::YEntry;
using config::YNode;

enum class FileFormat { kEmpty, kNative, kInferenceX, kRunners, kNightly, kUnknown };

// Decides by the top-level keys: `servebench:` → native; `labels:` → runners.yaml;
// `gpu:`/`vllm:`/`vllm_bench:` → nightly workload; a map of maps holding `scenarios`
// → InferenceX master config.
FileFormat DetectFormat(const YNode& root);

// InferenceX master config (inferencex-formats.md §1-4). `runners` (may be unloaded)
// is used to check runner labels.
std::vector<Recipe> LoadInferenceX(const LoadContext& ctx, const YNode& root,
                                   const RunnerConfig& runners);
// runners.yaml (inferencex-formats.md §8).
RunnerConfig LoadRunners(const LoadContext& ctx, const YNode& root);
// perf-eval nightly workload (nightly-workloads.md).
std::vector<Recipe> LoadNightly(const LoadContext& ctx, const YNode& root);
// servebench's native format (docs/recipes.md).
std::vector<Recipe> LoadNative(const LoadContext& ctx, const YNode& root);

// A YAML value as PyYAML would load it, as JSON (maps keep their order).
boost::json::value YamlToJson(const YNode& node);

// Engine adapter name for an InferenceX framework ("trt" → "trtllm",
// "dynamo-sglang" → "sglang", "sglang-disagg" → "sglang").
std::string EngineForFramework(const std::string& framework);
// Hardware name for a runner label ("cluster:mi355x-amds" → "mi355x").
std::string HardwareForRunner(const std::string& runner);

}  // namespace servebench::recipe
