// SearchSettings: what `servebench search` (and a recipe's `search:`, run/search_point.h) asks:
// the load of every probe, the SLO limits, which knob varies and over what range.
// Defaulted and documented field by field; Validate says what may not be.
#pragma once

#include <cstdint>
#include <vector>

#include "client/client_settings.h"
#include "common/status.h"
#include "search/slo_limit.h"

namespace servebench::search {

enum class Vary {
  kConcurrency,  // closed loop: max_concurrency = the value, request rate infinite
  kRate,         // open loop: request_rate_per_s = the value (a --max-concurrency cap stays)
};

// The top of a rate search's range when none is given, in requests/s (its bottom is
// `min`'s default, 1).
inline constexpr double kDefaultMaxRate = 1000;

struct SearchSettings {
  // Every probe runs this load with the varied value replaced (and the percentiles the
  // limits need added). A duration bound (duration_s) applies to each probe.
  client::BenchSettings bench;
  // With bench.duration_s and a varied rate: each probe prepares the prompts its
  // schedule needs (client::PromptsForDuration) instead of bench.num_prompts.
  bool size_prompts_by_duration = false;
  // Concurrency: each probe sends this many prompts per unit of concurrency (10 is
  // InferenceX's and `servebench sim --predict`'s default), so every probe fills its
  // slots alike. 0 = bench.num_prompts for every probe.
  int64_t prompts_per_concurrency = 0;
  std::vector<SloLimit> slos;  // all must hold; at least one
  Vary vary = Vary::kConcurrency;

  // ---- Range and resolution ----
  // The search starts at `min` and doubles until a probe fails or `max` is reached:
  // concurrency (integers) or requests/s.
  double min = 1;
  double max = 1024;  // a rate search's default is kDefaultMaxRate
  // Concurrency: bisection stops when the passing and failing values are this close
  // (1 = exact). Rate: when they are within this fraction of the passing rate.
  int64_t concurrency_step = 1;
  double rate_resolution = 0.05;

  // ---- Noise ----
  // When bisection has converged, the two values beside the boundary are probed until
  // each has this many probes; the majority decides (a tie fails: the answer is never
  // flattered). A majority that contradicts an earlier decision re-opens the search and
  // marks the result non_monotone. 1 = every value probed once.
  int repeats = 1;
  // A search stops after this many probes, keeping the highest value known to meet the
  // SLO (flagged probe_limit_reached).
  int max_probes = 40;
};

// Returns the first invalid field with its value and rule, naming the flag.
Status Validate(const SearchSettings& settings);

}  // namespace servebench::search
