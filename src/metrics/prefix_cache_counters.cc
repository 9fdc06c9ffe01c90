#include "metrics/prefix_cache_counters.h"

#include <string_view>

namespace servebench::metrics {
namespace {

double Sum(const std::vector<PromSample>& samples, std::string_view name, bool* found) {
  double total = 0;
  for (const PromSample& s : samples) {
    if (s.name == name) {
      total += s.value;
      *found = true;
    }
  }
  return total;
}

std::optional<double> Max(const std::vector<PromSample>& samples, std::string_view name) {
  std::optional<double> best;
  for (const PromSample& s : samples) {
    if (s.name == name && (!best || s.value > *best)) best = s.value;
  }
  return best;
}

}  // namespace

PrefixCacheCounters ExtractPrefixCacheCounters(const std::vector<PromSample>& samples) {
  PrefixCacheCounters c;
  bool queries = false, hits = false;
  c.queried_tokens = Sum(samples, "vllm:prefix_cache_queries_total", &queries);
  c.hit_tokens = Sum(samples, "vllm:prefix_cache_hits_total", &hits);
  if (queries && hits) {
    c.source = "vllm";
    // A KV connector's hits (a CPU offload tier) are prompt tokens not computed
    // either: queried among the same prompt tokens, found past the GPU hits.
    bool external = false;
    c.hit_tokens += Sum(samples, "vllm:external_prefix_cache_hits_total", &external);
    c.kv_usage = Max(samples, "vllm:kv_cache_usage_perc");
    return c;
  }
  queries = hits = false;
  c.queried_tokens = Sum(samples, "sglang:prompt_tokens_total", &queries);
  c.hit_tokens = Sum(samples, "sglang:cached_tokens_total", &hits);
  if (queries && hits) {
    c.source = "sglang";
    c.kv_usage = Max(samples, "sglang:token_usage");
    return c;
  }
  queries = hits = false;
  const double computed = Sum(samples, "llamacpp:prompt_tokens_total", &queries);
  c.hit_tokens = Sum(samples, "llamacpp:prompt_tokens_cached_total", &hits);
  if (queries && hits) {
    c.source = "llamacpp";
    c.queried_tokens = computed + c.hit_tokens;
    c.kv_usage = Max(samples, "llamacpp:kv_cache_usage_ratio");
    return c;
  }
  return {};
}

std::optional<double> PrefixHitRate(const PrefixCacheCounters& before,
                                    const PrefixCacheCounters& after) {
  if (before.source.empty() || before.source != after.source) return std::nullopt;
  const double queried = after.queried_tokens - before.queried_tokens;
  if (queried <= 0) return std::nullopt;
  return (after.hit_tokens - before.hit_tokens) / queried;
}

}  // namespace servebench::metrics
