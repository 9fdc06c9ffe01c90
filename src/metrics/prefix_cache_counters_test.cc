#include "metrics/prefix_cache_counters.h"

#include <gtest/gtest.h>

namespace servebench::metrics {
namespace {

PrefixCacheCounters Parse(const std::string& text) {
  return ExtractPrefixCacheCounters(*ParsePrometheusText(text));
}

TEST(PrefixCacheCountersTest, VllmCountersAreSummedOverEnginesAndTheRateIsARatioOfDeltas) {
  const PrefixCacheCounters before = Parse(
      "vllm:prefix_cache_queries_total{engine=\"0\"} 100\n"
      "vllm:prefix_cache_queries_total{engine=\"1\"} 100\n"
      "vllm:prefix_cache_hits_total{engine=\"0\"} 50\n"
      "vllm:prefix_cache_hits_total{engine=\"1\"} 0\n"
      "vllm:kv_cache_usage_perc{engine=\"0\"} 0.25\n");
  const PrefixCacheCounters after = Parse(
      "vllm:prefix_cache_queries_total{engine=\"0\"} 600\n"
      "vllm:prefix_cache_queries_total{engine=\"1\"} 600\n"
      "vllm:prefix_cache_hits_total{engine=\"0\"} 350\n"
      "vllm:prefix_cache_hits_total{engine=\"1\"} 300\n");
  EXPECT_EQ(before.source, "vllm");
  EXPECT_DOUBLE_EQ(before.queried_tokens, 200);
  EXPECT_DOUBLE_EQ(*before.kv_usage, 0.25);
  EXPECT_DOUBLE_EQ(*PrefixHitRate(before, after), 600.0 / 1000.0);
}

// A KV connector (a CPU offload tier) serves prompt tokens the GPU cache missed: they
// are hits too, among the same queried tokens.
TEST(PrefixCacheCountersTest, VllmExternalHitsCountAsHits) {
  const PrefixCacheCounters before = Parse(
      "vllm:prefix_cache_queries_total 0\nvllm:prefix_cache_hits_total 0\n"
      "vllm:external_prefix_cache_queries_total 0\nvllm:external_prefix_cache_hits_total 0\n");
  const PrefixCacheCounters after = Parse(
      "vllm:prefix_cache_queries_total 1000\nvllm:prefix_cache_hits_total 400\n"
      "vllm:external_prefix_cache_queries_total 600\nvllm:external_prefix_cache_hits_total 300\n");
  EXPECT_DOUBLE_EQ(after.hit_tokens, 700);
  EXPECT_DOUBLE_EQ(*PrefixHitRate(before, after), 0.7);
}

TEST(PrefixCacheCountersTest, LlamaCppPromptTokensExcludeTheCachedOnes) {
  const PrefixCacheCounters before =
      Parse("llamacpp:prompt_tokens_total 0\nllamacpp:prompt_tokens_cached_total 0\n");
  const PrefixCacheCounters after =
      Parse("llamacpp:prompt_tokens_total 300\nllamacpp:prompt_tokens_cached_total 100\n");
  EXPECT_EQ(after.source, "llamacpp");
  EXPECT_DOUBLE_EQ(*PrefixHitRate(before, after), 0.25);
}

TEST(PrefixCacheCountersTest, NoCountersOrNoQueriesGiveNoRate) {
  const PrefixCacheCounters none = Parse("vllm:num_requests_running 1\n");
  EXPECT_TRUE(none.source.empty());
  EXPECT_FALSE(PrefixHitRate(none, none).has_value());
  const PrefixCacheCounters same =
      Parse("vllm:prefix_cache_queries_total 10\nvllm:prefix_cache_hits_total 5\n");
  EXPECT_FALSE(PrefixHitRate(same, same).has_value());
}

}  // namespace
}  // namespace servebench::metrics
