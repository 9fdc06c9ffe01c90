// Renders an expanded Plan for `servebench matrix --format ...`:
//   table      for people: one line per point, grouped by serve session, with counts
//   json       InferenceX's matrix rows, key for key (what its workflows accept)
//   jsonl      servebench points, one canonical JSON object per line
//   github     a GitHub Actions matrix: {"include": [rows]}
//   buildkite  a Buildkite pipeline (JSON) with one step per serve session
// Thread-safe (pure functions).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recipe/recipe.h"

namespace servebench::recipe {

enum class MatrixFormat { kTable, kJson, kJsonl, kGithub, kBuildkite };

// nullopt for an unknown name.
std::optional<MatrixFormat> ParseMatrixFormat(std::string_view name);

// How a serve session's configuration is named for people: the buildkite step labels
// use it. The one definition is record::ConfigLabel (record/labels.h), which recipe/
// cannot include (record/ builds on recipe/): the caller passes it in.
using ConfigLabeler = std::function<std::string(const ServeSpec&)>;

// `recipe_paths` are the files the plan came from; the buildkite steps pass them
// to `servebench run` together with the session id, and are labelled
// "<recipe> <config_label(serve)> conc 1,4,16".
std::string RenderMatrix(const Plan& plan, MatrixFormat format,
                         const std::vector<std::string>& recipe_paths,
                         const ConfigLabeler& config_label);

}  // namespace servebench::recipe
