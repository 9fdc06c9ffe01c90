// ResolvedConfig: SimSettings turned into the objects the engine runs with — the
// catalogue entries, the PerfModel, scheduler and engine settings. Shared by the
// server and by `servebench sim --predict`, so both simulate exactly the same
// engine. Thread-safe (plain values after Resolve).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/status.h"
#include "sim/catalogue.h"
#include "sim/engine.h"
#include "sim/perf_model.h"
#include "sim/sim_settings.h"

namespace servebench::sim {

struct ResolvedConfig {
  Catalogue catalogue;
  Model model;
  Hardware hardware;
  EngineProfile engine_profile;
  std::optional<PerfModel> perf;
  SchedulerSettings scheduler;
  EngineSettings engine;
  std::string served_name;
  int max_model_len = 0;
};

// Fails with a message naming the flag at fault (unknown model or hardware, weights
// that do not fit, an acceptance target out of range...).
StatusOr<ResolvedConfig> Resolve(const SimSettings& settings);
// The same against an already loaded catalogue (settings.catalogue_dir is ignored).
StatusOr<ResolvedConfig> Resolve(const SimSettings& settings, const Catalogue& catalogue);

}  // namespace servebench::sim
