// Rehearsal on the simulator: `servebench run|nightly|matrix ... --engine sim`.
// Every point of the plan — native, InferenceX or nightly-workload — becomes its
// simulated twin: the same model, hardware, precision, parallelism, speculative
// decoding, lengths and load, served by `servebench sim` standing in for the point's
// engine (ServeSpec::stands_in_for; the sim takes that engine's serving-stack costs,
// data/sim/engines.yaml). The engine's own command-line extras mean nothing to the
// simulator: those with a simulator equivalent (vLLM's --max-num-seqs, SGLang's
// --max-running-requests, ...) are translated, the rest are dropped and listed.
// Everything is checked before anything starts: a model or GPU the catalogue does
// not know is an error naming the catalogue's entries.
// Pure functions of their inputs; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "recipe/point.h"

namespace servebench::run {

struct RehearsalSettings {
  // Wall seconds per simulated second for every simulated engine (--sim-time-scale);
  // 0 leaves each point's own (a sim recipe's sim.time_scale, else real time). The
  // numbers stay in simulated time either way (docs/metrics.md, "Simulated time").
  double time_scale = 0;
  std::string catalogue_dir;  // the sim's catalogue; empty = built in
};

// Rewrites `points` into their simulated twins, ids reassigned. Points already on the
// sim keep their recipe and take the time scale. Fails without changing anything,
// listing every point that cannot be rehearsed (recipe name, field, value and the
// catalogue's names): an unknown model, GPU or precision, a multinode or
// disaggregated deployment. `notes` gets one line per dropped engine extra.
Status RehearseOnSim(std::vector<recipe::Point>* points, const RehearsalSettings& settings,
                     std::vector<std::string>* notes);

}  // namespace servebench::run
