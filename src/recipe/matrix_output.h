// Renders an expanded Plan for `servebench matrix --format ...`:
//   table      for people: one line per point, grouped by serve session, with counts
//   json       InferenceX's matrix rows, key for key (what its workflows accept)
//   jsonl      servebench points, one canonical JSON object per line
//   github     a GitHub Actions matrix: {"include": [rows]}
//   buildkite  a Buildkite pipeline (JSON) with one step per serve session
// Thread-safe (pure functions).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recipe/recipe.h"

namespace servebench::recipe {

enum class MatrixFormat { kTable, kJson, kJsonl, kGithub, kBuildkite };

// nullopt for an unknown name.
std::optional<MatrixFormat> ParseMatrixFormat(std::string_view name);

// `recipe_paths` are the files the plan came from; the buildkite steps pass them
// to `servebench run` together with the session id.
std::string RenderMatrix(const Plan& plan, MatrixFormat format,
                         const std::vector<std::string>& recipe_paths);

}  // namespace servebench::recipe
