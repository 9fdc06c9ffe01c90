// The internal recipe model every input format becomes (shared/design.md "Recipe").
// A Recipe is one config key: what to serve (model, image, engine, precision,
// hardware), the scenarios (sequence lengths or agentic coding) with their search
// spaces, speculative decoding, evals and blocked status. InferenceX-only details
// whose key order the InferenceX row must keep (worker blocks, router, offload
// backend) are kept as JSON objects in input order. Plain values.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/diagnostics.h"
#include "recipe/point.h"

namespace servebench::recipe {

// Loading problems, located file:line:column, are config/'s (config/diagnostics.h);
// the recipe API names them as its own.
using config::Diagnostic;
using config::Diagnostics;
using config::FieldLocations;
using config::Location;

// A concurrency search space: a geometric range or an explicit list.
struct ConcurrencySpec {
  bool is_range = false;
  int start = 0, end = 0, step = 2;  // start, start×step, …; the last step clamps to end
  std::vector<int> list;
  // The concurrencies in order (InferenceX's rule for ranges).
  std::vector<int> Values() const;
};

// One entry of a search space: a topology and the concurrencies to sweep on it.
struct SearchEntry {
  Location location;
  std::string path;  // field path, for messages
  // Single node (has_tp) ...
  bool has_tp = false;
  int tp = 1, pp = 1, dcp_size = 1, pcp_size = 1;
  int dp = 1;  // native: data-parallel replicas
  std::optional<int> ep;
  std::optional<bool> dp_attn;
  bool pp_given = false, dcp_given = false, pcp_given = false;
  // ... or multinode: prefill and decode workers (rows carry `*_row` verbatim).
  bool has_workers = false;
  WorkerSpec prefill, decode;
  boost::json::object prefill_row, decode_row;
  std::string spec_decoding = "none";  // InferenceX name: mtp, draft_model, none
  std::optional<SpecDecoding> spec;    // native: the full description
  std::optional<boost::json::object> router;
  std::optional<std::string> kv_p2p_transfer;
  std::optional<std::string> kv_offloading;  // agentic: none | dram
  std::optional<boost::json::object> kv_offload_backend;
  std::optional<int> total_cpu_dram_gb;  // native agentic: the KV offload DRAM budget
  ConcurrencySpec conc;
  // Native: overrides of the recipe's serve options for this entry.
  std::vector<std::string> extra_args;
  std::map<std::string, std::string> env;
  std::map<std::string, std::string> env_from;                   // added to the recipe's
  std::optional<std::vector<std::vector<std::string>>> prepare;  // replaces the recipe's
  std::optional<VerbatimCommand> command;                        // replaces the recipe's
};

struct Scenario {
  std::string type = "fixed-seq-len";  // or "agentic-coding"
  std::string name;                    // nightly config name ("8k-in-1k-out")
  int isl = 0, osl = 0;
  std::optional<std::string> dram_utilization;  // decimal text as written, (0, 1]
  std::vector<SearchEntry> search_space;
  LoadSpec load;                          // native/nightly load options (isl/osl mirrored)
  std::vector<int> num_prompts_per_conc;  // nightly: num_prompts list paired with conc list
  int prompts_per_concurrency = 0;        // native: num_prompts = this × concurrency
  int warmups_per_concurrency = 0;        // native: LoadSpec.warmups_per_concurrency
  int duration_s = 0;                     // native agentic-coding: the replay's length
};

struct Recipe {
  std::string name;  // config key / workload name
  Location location;
  std::string source_format;  // "native", "inferencex", "nightly"
  std::string image, model, model_prefix, precision, framework, runner;
  bool multinode = false, disagg = false;
  std::optional<boost::json::object> router;
  std::optional<std::string> kv_p2p_transfer;
  std::vector<Scenario> scenarios;  // fixed-seq-len entries first, then agentic
  ServeSpec serve;                  // defaults for every point (engine, hardware, spec, ...)
  std::vector<EvalTask> evals;      // native / nightly accuracy tasks
  std::string eval_at = "highest";  // "highest" (per session) | "all" | "once" (last point)
  bool nightly = false;
  bool blocked = false;
  std::string blocked_reason, blocked_link;
  // env names whose values may be shown (point.h, Point::env_not_secret).
  std::vector<std::string> env_not_secret;
};

// runners.yaml: label → runner nodes, and hardware facts for DRAM budgets.
struct RunnerConfig {
  bool loaded = false;
  std::string file;
  std::vector<std::pair<std::string, std::vector<std::string>>> labels;
  struct Hardware {
    int64_t available_cpu_dram_mib = 0;
    int64_t gpus_per_node = 0;
  };
  std::map<std::string, Hardware> hardware;
  const std::vector<std::string>* Nodes(const std::string& label) const;
};

struct RecipeSet {
  std::vector<Recipe> recipes;  // in file order, then key order
  RunnerConfig runners;
  // Where every field was written, by path (field_reader.h), for checks that run
  // after loading: recipe.field_locations.find(recipe.name + ".sim.hardware").
  FieldLocations field_locations;
};

}  // namespace servebench::recipe
