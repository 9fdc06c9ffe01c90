// Internal to recipe/: the steps of ExpandRecipes (recipe.h). InferenceX rows are
// generated exactly as InferenceX's generate_sweep_configs.py at 843c6254 does
// (inferencex-formats.md §5-7); native and nightly recipes expand to points
// directly. Each row remembers the recipe and search-space entry it came from.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "common/limits.h"
#include "recipe/recipe.h"

namespace servebench::recipe {

// Expansion stops with an error past this many rows or points, so a hostile or
// mistaken recipe (aliases multiply lists cheaply) cannot exhaust memory. The real
// InferenceX full sweep is 1,820 rows / 2,078 points.
inline constexpr size_t kMaxExpandedPoints = static_cast<size_t>(limits::kMaxPointsPerSweep);

struct RowOrigin {
  const Recipe* recipe = nullptr;
  const Scenario* scenario = nullptr;
  const SearchEntry* entry = nullptr;
  const RunnerConfig* runners = nullptr;  // runners.yaml (its hardware section: GPUs per node)
};

struct RowSet {
  std::vector<boost::json::object> rows;
  std::vector<RowOrigin> origins;  // parallel to rows
};

// Appends the InferenceX rows of `recipe` (which passed the recipe-level filters).
// Problems that only show at generation (DRAM budgets) go to `errors`.
void GenerateInferenceXRows(const Recipe& recipe, const RunnerConfig& runners,
                            const MatrixFilters& filters, RowSet* out,
                            std::vector<std::string>* errors);

// InferenceX's eval marking (mark_eval_entries / mark_all_eval_entries) and the
// --evals-only filter, over all rows together.
void ApplyEvalSelection(EvalSelection selection, RowSet* rows);

// The servebench points of one InferenceX row (one per concurrency), ids unset.
std::vector<Point> PointsFromInferenceXRow(const boost::json::object& row, const RowOrigin& origin);

// Points of a native or nightly recipe, filtered; ids unset; with where each came
// from (its search-space entry) in `origins`. Also appends one InferenceX-shaped
// single-node row per point to `rows`.
void ExpandDirect(const Recipe& recipe, const MatrixFilters& filters, std::vector<Point>* points,
                  std::vector<Location>* origins, std::vector<boost::json::object>* rows,
                  std::vector<std::string>* errors);

// InferenceX's exp-name of a single-node agentic-coding row, which a native agentic
// scenario's points get too: <prefix>_tp<tp>_conc<conc>_kvnone, or _kv<mode>-<backend>
// with a KV offload tier, then _spec-<spec> unless `spec` is "none".
std::string AgenticExpName(const std::string& model_prefix, int tp, int conc,
                           const std::string& kv_offloading, const std::string& backend,
                           const std::string& spec);

// "1k1k" → (1024, 1024); "8k1k"; "1k8k"; "<isl>x<osl>" or "<isl>_<osl>". False if malformed.
bool ParseSeqLen(const std::string& text, int* isl, int* osl);
// InferenceX's short name: 1k1k, 8k1k, else "<isl>_<osl>".
std::string SeqLenName(int isl, int osl);
// fnmatch-style glob with * and ?.
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace servebench::recipe
