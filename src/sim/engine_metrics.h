// EngineMetrics: the counters, gauges and histograms the simulated engine exposes
// at /metrics under vLLM's names (reference engines.md §5, metrics.md §7). Values
// are plain numbers updated on the loop thread; Render() writes the Prometheus
// text exposition format. Not thread-safe: loop thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace servebench::sim {

// A cumulative Prometheus histogram with fixed bucket upper bounds (seconds).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);
  // Appends `name_bucket{...,le=...}`, `name_sum`, `name_count` lines.
  void Render(const std::string& name, const std::string& labels, std::string* out) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative; last = +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
};

struct EngineMetrics {
  EngineMetrics();
  // ---- gauges (set by the engine) ----
  int num_requests_running = 0;
  int num_requests_waiting = 0;
  double kv_cache_usage_perc = 0;  // 0..1, as vLLM v1
  // ---- counters ----
  uint64_t prompt_tokens_total = 0;
  uint64_t generation_tokens_total = 0;
  uint64_t request_success_length = 0;
  uint64_t request_success_stop = 0;
  uint64_t request_success_abort = 0;
  uint64_t num_preemptions_total = 0;
  // Prompt tokens looked up in / served from the prefix cache (vLLM v1, tokens, not
  // requests); stay 0 without --enable-prefix-caching.
  uint64_t prefix_cache_queries_total = 0;
  uint64_t prefix_cache_hits_total = 0;
  // The CPU offload tier (--kv-offload-gb), vLLM's KV-connector names; rendered only
  // with a tier (cpu_kv_tier = true). Tokens looked up past / found beyond the GPU hits.
  bool cpu_kv_tier = false;
  uint64_t external_prefix_cache_queries_total = 0;
  uint64_t external_prefix_cache_hits_total = 0;
  double cpu_kv_cache_usage_perc = 0;  // 0..1
  // Bytes over all GPUs and link seconds of the copies to and from the tier
  // (InferenceX's vLLM adapter names; counters, as floats).
  double kv_offload_bytes_gpu_to_cpu = 0, kv_offload_bytes_cpu_to_gpu = 0;
  double kv_offload_time_gpu_to_cpu = 0, kv_offload_time_cpu_to_gpu = 0;
  // Prefix caching on (prompt_tokens_by_source is rendered): prompt tokens computed
  // here, reused from the GPU cache, copied back from the CPU tier.
  bool prefix_caching = false;
  uint64_t prompt_tokens_local_compute = 0;
  uint64_t spec_decode_num_drafts = 0;
  uint64_t spec_decode_num_draft_tokens = 0;
  uint64_t spec_decode_num_accepted_tokens = 0;
  std::vector<uint64_t> spec_decode_num_accepted_tokens_per_pos;  // size k
  uint64_t engine_steps_total = 0;                                // servebench extension (sim only)
  // How late the engine's latest step was delivered against its schedule, in
  // simulated seconds (0 = on time; always 0 at time_scale 0). servebench extension.
  double schedule_lag_seconds = 0;
  // ---- histograms (simulated seconds) ----
  Histogram time_to_first_token;
  Histogram inter_token_latency;
  Histogram e2e_request_latency;
  Histogram request_queue_time;
  // Per step, how late its delivery was (servebench extension; see engine.h).
  Histogram step_lag;

  // Prometheus text for model `model_name` (label model_name, as vLLM).
  std::string Render(const std::string& model_name) const;
};

}  // namespace servebench::sim
