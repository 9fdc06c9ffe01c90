// The server-side prefix-cache hit rate of a run: the engine's own counters, scraped
// from /metrics before and after the run (reference agentic.md §4.3). Counters are
// summed over every label set (engines, DP ranks); the rate is a ratio of deltas,
// never a ratio gauge. Pure functions; thread-safe.
//
//   vLLM       (vllm:prefix_cache_hits_total + vllm:external_prefix_cache_hits_total) /
//              vllm:prefix_cache_queries_total (tokens; the external counter, a KV
//              connector's such as a CPU offload tier, counts hits past the GPU's)
//   SGLang     sglang:cached_tokens_total / sglang:prompt_tokens_total
//   llama.cpp  llamacpp:prompt_tokens_cached_total /
//              (llamacpp:prompt_tokens_cached_total + llamacpp:prompt_tokens_total)
//              (its prompt counter excludes cached tokens in builds that export both)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "metrics/prometheus.h"

namespace servebench::metrics {

struct PrefixCacheCounters {
  std::string source;  // "vllm", "sglang", "llamacpp"; empty = the server exports none
  double queried_tokens = 0;
  double hit_tokens = 0;
  // The KV-usage gauge at the scrape (0–1), when exported.
  std::optional<double> kv_usage;
};

PrefixCacheCounters ExtractPrefixCacheCounters(const std::vector<PromSample>& samples);

// Hits ÷ queries over the run, or nullopt when the counters are absent, from
// different engines, or nothing was queried in between.
std::optional<double> PrefixHitRate(const PrefixCacheCounters& before,
                                    const PrefixCacheCounters& after);

}  // namespace servebench::metrics
