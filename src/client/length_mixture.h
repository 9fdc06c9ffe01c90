// ISL/OSL mixtures (BenchSettings::sequence_distribution; docs/bench.md "Length
// mixtures"): AIPerf's --sequence-distribution text, the exact assignment of
// components to prompts, the normal length draws, and the realised distribution
// that goes into the result. Pure functions; deterministic for a seed.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "client/client_settings.h"
#include "common/status.h"
#include "metrics/request_record.h"

namespace servebench::client {

// "ISL[|SD],OSL[|SD]:WEIGHT;..." (AIPerf's semicolon format), e.g.
// "64|10,32|8:70;256|40,128|20:30". Fails naming the component and the field that is
// malformed or out of range (lengths 1 .. limits::kMaxTokensPerRequest, sd >= 0,
// weight > 0).
StatusOr<std::vector<SequenceComponent>> ParseSequenceDistribution(const std::string& text);

// The same components checked as settings (Validate calls it).
Status ValidateSequenceDistribution(const std::vector<SequenceComponent>& components);

// Component of each of `n` prompts: component c gets its weight's share of n exactly
// (largest remainder; ties to the earlier component), the order shuffled by `rng`.
std::vector<int> AssignComponents(const std::vector<SequenceComponent>& components, int64_t n,
                                  std::mt19937_64& rng);

// A length drawn from normal(mean, sd), rounded, clamped to 1 .. kMaxTokensPerRequest.
int64_t DrawLength(int64_t mean, double sd, std::mt19937_64& rng);

// servebench.sequence_distribution: per component its configured isl/osl/sd, weight
// and share (%), then what the run realised over the measured requests that
// completed: completed, share_pct, and the mean and sd of prompt tokens (the server's
// usage, else the client's count) and of output tokens. `component_of` maps a
// measured request's index to its component.
boost::json::array RealisedMixtureJson(const std::vector<SequenceComponent>& components,
                                       const std::vector<int>& component_of,
                                       const std::vector<metrics::RequestRecord>& records);

}  // namespace servebench::client
