// Prefix pools (--dataset-name prefix_repetition; BenchSettings::prefix_pool; docs/bench.md
// "Prefix pools"): which measured prompt shares which pool prefix, the prompts themselves
// (token ids for /v1/completions, text fitted with the server's tokenizer for chat), and
// after the run the expected reuse beside the server's prefix-cache counters.
//
// The expected reuse counts what vLLM's automatic prefix caching (and the sim's) can hit:
// whole blocks of --engine-block-size tokens inside the pool prefix, at most the prompt's
// length minus one token, with the pool primed and an infinite cache. With token ids that
// is exactly what the engine counts; chat text adds the template's tokens before the
// prefix, which moves the block boundary by less than one block per prompt.
// Pure functions, deterministic for a seed; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "client/client_settings.h"
#include "client/dataset.h"
#include "client/prefix_hit_check.h"
#include "common/status.h"
#include "metrics/request_record.h"
#include "metrics/validity.h"

namespace servebench::client {

// The dataset name that selects a prefix pool (vLLM's).
inline constexpr std::string_view kPrefixPoolDataset = "prefix_repetition";

// The settings checked against the run's measured prompt count (Validate calls it):
// lengths within limits, suffix >= 1, reuse in [0, 1], and with reuse > 0 at least one
// measured prompt per pool prefix. Each message names the flag.
Status ValidatePrefixPool(const PrefixPoolSettings& pool, int64_t num_prompts);

// Pool prompts among `n` measured ones: round(reuse_ratio x n).
int64_t PoolPrompts(const PrefixPoolSettings& pool, int64_t n);

// Per measured prompt, its pool prefix 0 .. num_prefixes - 1, or -1 for a prompt with a
// prefix of its own. Prefix k is shared by PoolPrompts / num_prefixes prompts, one more for
// the first PoolPrompts % num_prefixes prefixes; the order is shuffled by `rng`.
std::vector<int> LayOutPrefixPool(const PrefixPoolSettings& pool, int64_t n, std::mt19937_64& rng);

// Builds the prompt set: `measured` and `warmups` as MakePrompts does (warm-ups have
// prefixes of their own, so they never seed the cache) and `primers`, one per pool
// prefix with a fresh suffix and max_tokens 1. Prompt::prefix_group and
// prefix_tokens say which prefix each prompt carries.
StatusOr<PromptSet> MakePrefixPoolPrompts(const BenchSettings& settings, bool chat,
                                          const TokenCounter& count_tokens);

// Per measured prompt, what the report needs after the prompts became requests.
struct PoolPromptInfo {
  int prefix_group = -1;      // -1: a prefix of its own
  int64_t prefix_tokens = 0;  // the prefix's tokens (exact for ids, the server's count for text)
};

// The result's "prefix_cache" object for a prefix pool: the pool as configured and laid
// out, the expected reuse over the measured requests that completed (`records` may hold
// warm-ups and primers: skipped), and the server's side (prefix_hit_check.h), which adds
// `prefix_hits_disagree` to `validity` beyond --prefix-hit-tolerance.
boost::json::object PrefixPoolReport(const BenchSettings& settings,
                                     const std::vector<PoolPromptInfo>& prompts, bool chat,
                                     int64_t primers,
                                     const std::vector<metrics::RequestRecord>& records,
                                     const std::optional<PrefixCacheSide>& server,
                                     metrics::Validity* validity);

}  // namespace servebench::client
