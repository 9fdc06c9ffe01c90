// WriteNativeRecipes: captured InferenceX points written out as one native recipe
// file (docs/recipes.md), a recipe per config key, so the captured commands can be
// read, reviewed, versioned and run without the checkout.
//
// Each scenario (isl, osl) gets one search-space entry per (topology, speculative
// decoding, command): the concurrencies that share a command share an entry, and a
// command that changes with CONC gives one entry per distinct command. Entries carry
// `command`, `env`, `env_from` and `prepare`; the client's load goes into scenario
// keys (prompts_per_concurrency, warmups_per_concurrency, ...). Loading and expanding
// the file gives points whose serve and load specs equal the captured points'
// (tested); InferenceX's eval marking is not carried (run the master config with
// --inferencex-root for it). Agentic-coding points become `scenario: agentic-coding`
// scenarios (their duration; entries with their KV offload tier and the command's
// auxiliary servers).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "recipe/point.h"

namespace servebench::capture {

struct WrittenRecipes {
  std::string yaml;
  int recipes = 0;
  // "key: why" for config keys (or parts of them) not written.
  std::vector<std::string> skipped;
};

// `points` are captured single-node InferenceX points (serve.command set), in plan
// order; others are ignored. `header` is written as comment lines at the top.
// Points of one (isl, osl) whose scenario-level load differs (endpoint, dataset,
// warm-ups, ...) go into scenarios of their own. A key the native format cannot
// express (prompt counts neither one number nor one multiple of the concurrency,
// a max-model-len other than isl + osl + 256) is left out and listed in `skipped`
// with the reason; the others are still written. Fails on nothing at present.
StatusOr<WrittenRecipes> WriteNativeRecipes(const std::vector<recipe::Point>& points,
                                            const std::string& header);

}  // namespace servebench::capture
