// Preflight: what `servebench run` would otherwise find only after an engine started,
// checked on the expanded plan with the run's settings. `validate`, `run` and
// `nightly` call it (through LoadPlan), so validate says ok exactly when run would
// start. One Diagnostic per problem, at file:line:column of the field when it is
// known (else of the point's search-space entry or recipe):
//   - the engine command renders: adapter-owned flags in extra_args / env / sim
//     options, combinations the adapter refuses (engine/adapter.h)
//   - a sim engine's command parses as `servebench sim` parses it, with its values
//     valid and the model and GPU in the catalogue (a look-alike Unicode hyphen is
//     named as such); unknown faults are unknown sim flags
//   - context: isl + osl fit max_model_len, and the sim model's context
//   - the point's load passes client::Validate (common/limits.h); a search point's
//     limits and range pass search/'s checks (run/search_point.h), at the search key
//   - evals: a real engine needs --eval-data; --eval-thresholds loads
//   - a serve session of several processes (multinode / disaggregated): its roles,
//     KV connector, router and launch path are ones servebench launches
//     (engine::CheckSession); one another launcher runs is a warning in validate
// Each serve session is checked once (its points share the command). Reads no
// network and starts nothing.
#pragma once

#include "recipe/recipe.h"
#include "run/run_settings.h"

namespace servebench::cli {

enum class PreflightFor {
  kRun,       // run / nightly: every problem is an error
  kValidate,  // validate: what only stops a local `run` is a warning (sessions another
              // launcher runs, engines without an adapter: `matrix` exports them), and
              // so is a missing --eval-data (run may be given one)
};

recipe::Diagnostics CheckPlanRunnable(const recipe::RecipeSet& set, const recipe::Plan& plan,
                                      const run::RunSettings& settings,
                                      PreflightFor purpose = PreflightFor::kRun);

}  // namespace servebench::cli
