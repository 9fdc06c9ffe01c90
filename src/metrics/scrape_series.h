// The engine's /metrics over the measured window: scrapes taken every
// --metrics-interval-s (client/metrics_poller.h), the KV-cache usage each one shows,
// its statistics in the bench result (servebench.kv_usage) and the series file beside
// the per-request records (the record's artifacts.server_metrics; docs/agentic.md
// "KV usage over time"). Pure functions; thread-safe.
//
// KV usage gauges (reference agentic.md §4.3), the maximum over the engine's series
// (DP ranks, engines), a value above 1.5 read as percent (÷ 100, InferenceX's rule):
//   vLLM       vllm:kv_cache_usage_perc (older vllm:gpu_cache_usage_perc);
//              CPU tier vllm:cpu_kv_cache_usage_perc
//   SGLang     sglang:token_usage; host tier sglang:hicache_host_used_tokens /
//              sglang:hicache_host_total_tokens
//   llama.cpp  llamacpp:kv_cache_usage_ratio
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "metrics/prometheus.h"

namespace servebench::metrics {

// One scrape: when it was answered (Unix ns, the client's wall clock) and what the
// engine exported then, histogram buckets left out (ScrapeOf).
struct TimedScrape {
  int64_t unix_ns = 0;
  std::vector<PromSample> samples;
};

// The samples of a scrape worth a time series: every gauge and counter, and each
// histogram's _sum and _count. Buckets and _created samples are dropped (buckets are
// most of a real engine's exposition, and no KV or cache figure is one), and so are a
// summary's _sum and _count (a _sum or _count without buckets of its family).
TimedScrape ScrapeOf(int64_t unix_ns, std::vector<PromSample> samples);

struct KvUsage {
  std::string source;         // "vllm", "sglang", "llamacpp"; "" = no KV gauge exported
  std::optional<double> gpu;  // 0..1
  std::optional<double> cpu;  // 0..1, an offload tier's, when exported
};
KvUsage KvUsageOf(const std::vector<PromSample>& samples);

// servebench.kv_usage of the bench result: {interval_s, scrapes, source, gpu, cpu},
// gpu and cpu each {samples, mean, max, p50, p90, p99} over the scrapes that had the
// gauge (linear percentiles), null when none had it.
boost::json::object KvUsageJson(const std::vector<TimedScrape>& scrapes, double interval_s);

// The series file: one JSON line per scrape,
//   {"unix_ns": N, "kv_usage": {"gpu": x|null, "cpu": x|null},
//    "samples": [[name, {labels}, value], ...]}
std::string ScrapesToJsonl(const std::vector<TimedScrape>& scrapes);
// Reads it back; fails naming path:line and the field on a malformed line.
StatusOr<std::vector<TimedScrape>> ReadScrapesJsonl(const std::string& path);

}  // namespace servebench::metrics
