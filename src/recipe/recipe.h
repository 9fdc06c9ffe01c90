// recipe/: recipe formats → validated Recipes → sweep points.
//
//   LoadRecipes(paths)      reads native, InferenceX master-config (+ runners.yaml)
//                           and nightly-workload files; every problem is collected
//   ExpandRecipes(set, f)   applies filters and InferenceX's expansion rules; gives
//                           InferenceX-shaped rows and servebench Points
//   GroupSessions(points)   points sharing a session_id → one live server each
//   PointToJson/FromJson    canonical JSON (sorted keys); ids in point.h's header
//
// Formats are in docs/recipes.md. Everything here is a plain value; functions are
// reentrant and may be called from any thread.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "config/diagnostics.h"
#include "recipe/point.h"
#include "recipe/recipe_model.h"

namespace servebench::recipe {

// ---- Loading ----

// Reads every file in `paths` (format detected per file: runners.yaml, native,
// InferenceX master config, nightly workload) and validates it. `runners_file`, if
// set, is read as runners.yaml as well. Duplicate recipe names across files are
// errors. Never throws; problems go to `diagnostics` and `set.ok()` is false then.
RecipeSet LoadRecipes(const std::vector<std::string>& paths, Diagnostics* diagnostics,
                      const std::string& runners_file = "");

// As LoadRecipes for a single in-memory document (used by tests and the fuzzer).
RecipeSet LoadRecipeText(std::string_view text, const std::string& name, Diagnostics* diagnostics);

// ---- Expansion ----

enum class EvalSelection {
  kDefault,  // InferenceX's policy: 8k1k, conc >= 16, max and median per group
  kNone,     // --no-evals: nothing marked
  kOnly,     // --evals-only: only eval rows, each eval_only
  kAll,      // --all-evals: every 8k1k fixed row (implies eval-only rows)
  kOnlyAll,  // --evals-only --all-evals
};

struct MatrixFilters {
  std::vector<std::string> config_keys;  // globs (* and ?); each must match a recipe
  std::vector<std::string> seq_lens;     // "1k1k", "8k1k" or "<isl>x<osl>"
  std::vector<int> conc;                 // keep only these concurrencies
  std::vector<std::string> runners;      // runner labels
  std::vector<std::string> frameworks;   // framework / engine names
  std::vector<std::string> precisions;
  std::vector<std::string> model_prefixes;  // matched against the key prefix and the field
  bool single_node = true, multi_node = true;
  std::vector<std::string> scenario_types;  // "fixed-seq-len", "agentic-coding"
  EvalSelection evals = EvalSelection::kDefault;
  std::string runner_node_filter;  // expand to runner nodes containing this
};

// The expanded sweep. `rows` are InferenceX matrix rows, key for key as the
// InferenceX generator emits them (native and nightly points get single-node rows
// of the same shape); `points` are servebench points with ids set, in row order.
struct Plan {
  std::vector<boost::json::object> rows;
  std::vector<Point> points;
  // Where each point came from (its search-space entry, else its recipe), parallel to
  // `points`: checks after expansion (cli/preflight.h) report file:line:column with it.
  std::vector<Location> origins;
};

// Fails (InvalidArgument, listing every problem) when a filter is malformed or a
// --config-keys pattern matches nothing.
StatusOr<Plan> ExpandRecipes(const RecipeSet& set, const MatrixFilters& filters);

// ---- Identity and sessions ----

// Canonical JSON of a point: every field, keys sorted, no whitespace.
std::string PointToJson(const Point& point);
// Inverse of PointToJson; unknown keys are errors (the JSON came from a newer version).
StatusOr<Point> PointFromJson(std::string_view json);
// Sets point_id and session_id as defined at the top of point.h.
void AssignIds(Point* point);

// ---- Output ----

// What a secret value reads as wherever a point is written (records, the store,
// `matrix --format jsonl`, --dry-run): the name stays, the value does not.
inline constexpr char kRedactedValue[] = "<redacted>";

// A copy of `point` to write out: every serve.env value (and every value of an
// auxiliary server's and the router's env, serve.command.auxiliary/router) replaced by
// kRedactedValue unless its name is in point.env_not_secret or it is a hub snapshot word
// (recipe/hub_snapshot.h: a placeholder, no secret). The ids are those of `point` (secrets
// are part of what ran; their values never leave the process).
Point WithSecretsRedacted(const Point& point);

// Points sharing one live server, in ascending concurrency.
struct ServeSession {
  std::string session_id;
  std::vector<Point> points;
};
// Groups by session_id; sessions in order of first appearance.
std::vector<ServeSession> GroupSessions(const std::vector<Point>& points);

}  // namespace servebench::recipe
