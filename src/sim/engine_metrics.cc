#include "sim/engine_metrics.h"

#include <fmt/format.h>

#include <algorithm>

namespace servebench::sim {
namespace {
// vLLM's bucket bounds for TTFT (and, shortened, for the other latency histograms).
std::vector<double> TtftBuckets() {
  return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
          1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
}
std::vector<double> ItlBuckets() {
  return {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
          0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
}
std::vector<double> E2eBuckets() {
  return {0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
          30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
}
// Step lateness, simulated seconds: fine below a millisecond, where a run is still
// valid, coarse above (metrics::ServerLagP99 interpolates within a bucket).
std::vector<double> LagBuckets() {
  return {0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05,
          0.1,    0.2,    0.5,    1.0,   2.0,   5.0,   10.0, 30.0, 100.0};
}
}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  ++counts_[i];
  sum_ += value;
  ++count_;
}

void Histogram::Render(const std::string& name, const std::string& labels, std::string* out) const {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    fmt::format_to(std::back_inserter(*out), "{}_bucket{{{},le=\"{}\"}} {}\n", name, labels,
                   bounds_[i], cumulative);
  }
  cumulative += counts_.back();
  fmt::format_to(std::back_inserter(*out), "{}_bucket{{{},le=\"+Inf\"}} {}\n", name, labels,
                 cumulative);
  fmt::format_to(std::back_inserter(*out), "{}_sum{{{}}} {}\n{}_count{{{}}} {}\n", name, labels,
                 sum_, name, labels, count_);
}

EngineMetrics::EngineMetrics()
    : time_to_first_token(TtftBuckets()),
      inter_token_latency(ItlBuckets()),
      e2e_request_latency(E2eBuckets()),
      request_queue_time(E2eBuckets()),
      step_lag(LagBuckets()) {}

std::string EngineMetrics::Render(const std::string& model_name) const {
  std::string out;
  out.reserve(16384);
  std::string labels = fmt::format("engine=\"0\",model_name=\"{}\"", model_name);
  auto gauge = [&](const char* name, const char* help, double v) {
    fmt::format_to(std::back_inserter(out),
                   "# HELP vllm:{} {}\n# TYPE vllm:{} gauge\nvllm:{}{{{}}} {}\n", name, help, name,
                   name, labels, v);
  };
  auto counter = [&](const char* name, const char* help, uint64_t v) {
    fmt::format_to(std::back_inserter(out),
                   "# HELP vllm:{} {}\n# TYPE vllm:{} counter\nvllm:{}_total{{{}}} {}\n", name,
                   help, name, name, labels, v);
  };
  gauge("num_requests_running", "Number of requests in model execution batches.",
        num_requests_running);
  gauge("num_requests_waiting", "Number of requests waiting to be processed.",
        num_requests_waiting);
  gauge("kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", kv_cache_usage_perc);
  counter("num_preemptions", "Cumulative number of preemption from the engine.",
          num_preemptions_total);
  counter("prompt_tokens", "Number of prefill tokens processed.", prompt_tokens_total);
  counter("prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
          prefix_cache_queries_total);
  counter("prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
          prefix_cache_hits_total);
  counter("generation_tokens", "Number of generation tokens processed.", generation_tokens_total);
  if (prefix_caching) {
    const uint64_t external = cpu_kv_tier ? external_prefix_cache_hits_total : 0;
    fmt::format_to(std::back_inserter(out),
                   "# HELP vllm:prompt_tokens_by_source Number of prompt tokens by source.\n"
                   "# TYPE vllm:prompt_tokens_by_source counter\n"
                   "vllm:prompt_tokens_by_source_total{{{},source=\"local_compute\"}} {}\n"
                   "vllm:prompt_tokens_by_source_total{{{},source=\"local_cache_hit\"}} {}\n"
                   "vllm:prompt_tokens_by_source_total{{{},source=\"external_kv_transfer\"}} {}\n",
                   labels, prompt_tokens_local_compute, labels, prefix_cache_hits_total, labels,
                   external);
  }
  if (cpu_kv_tier) {
    counter("external_prefix_cache_queries",
            "External prefix cache queries from KV connector cross-instance cache sharing, in "
            "terms of number of queried tokens.",
            external_prefix_cache_queries_total);
    counter("external_prefix_cache_hits",
            "External prefix cache hits from KV connector cross-instance cache sharing, in terms "
            "of number of cached tokens.",
            external_prefix_cache_hits_total);
    gauge("cpu_kv_cache_usage_perc", "CPU KV-cache usage. 1 means 100 percent usage.",
          cpu_kv_cache_usage_perc);
    auto float_counter = [&](const char* name, const char* help, double v) {
      fmt::format_to(std::back_inserter(out),
                     "# HELP vllm:{} {}\n# TYPE vllm:{} counter\nvllm:{}_total{{{}}} {}\n", name,
                     help, name, name, labels, v);
    };
    float_counter("kv_offload_bytes_gpu_to_cpu", "KV bytes offloaded to the CPU tier.",
                  kv_offload_bytes_gpu_to_cpu);
    float_counter("kv_offload_bytes_cpu_to_gpu", "KV bytes loaded back from the CPU tier.",
                  kv_offload_bytes_cpu_to_gpu);
    float_counter("kv_offload_time_gpu_to_cpu", "Seconds of offload transfers to the CPU tier.",
                  kv_offload_time_gpu_to_cpu);
    float_counter("kv_offload_time_cpu_to_gpu", "Seconds of load transfers from the CPU tier.",
                  kv_offload_time_cpu_to_gpu);
  }
  fmt::format_to(std::back_inserter(out),
                 "# HELP vllm:request_success Count of successfully processed requests.\n"
                 "# TYPE vllm:request_success counter\n"
                 "vllm:request_success_total{{{},finished_reason=\"length\"}} {}\n"
                 "vllm:request_success_total{{{},finished_reason=\"stop\"}} {}\n"
                 "vllm:request_success_total{{{},finished_reason=\"abort\"}} {}\n",
                 labels, request_success_length, labels, request_success_stop, labels,
                 request_success_abort);
  counter("spec_decode_num_drafts", "Number of spec decoding drafts.", spec_decode_num_drafts);
  counter("spec_decode_num_draft_tokens", "Number of draft tokens.", spec_decode_num_draft_tokens);
  counter("spec_decode_num_accepted_tokens", "Number of accepted tokens.",
          spec_decode_num_accepted_tokens);
  out +=
      "# HELP vllm:spec_decode_num_accepted_tokens_per_pos Accepted tokens per draft position.\n"
      "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter\n";
  for (size_t i = 0; i < spec_decode_num_accepted_tokens_per_pos.size(); ++i) {
    fmt::format_to(std::back_inserter(out),
                   "vllm:spec_decode_num_accepted_tokens_per_pos_total{{{},position=\"{}\"}} {}\n",
                   labels, i, spec_decode_num_accepted_tokens_per_pos[i]);
  }
  counter("sim_engine_steps", "Engine steps run by the simulated engine (servebench extension).",
          engine_steps_total);
  gauge("sim_schedule_lag_seconds",
        "How late the latest step was delivered against the simulated schedule, in simulated "
        "seconds (servebench extension).",
        schedule_lag_seconds);
  auto hist = [&](const char* name, const char* help, const Histogram& h) {
    fmt::format_to(std::back_inserter(out), "# HELP vllm:{} {}\n# TYPE vllm:{} histogram\n", name,
                   help, name);
    h.Render(std::string("vllm:") + name, labels, &out);
  };
  hist("time_to_first_token_seconds", "Histogram of time to first token in seconds.",
       time_to_first_token);
  hist("inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
       inter_token_latency);
  hist("e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.",
       e2e_request_latency);
  hist("request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.",
       request_queue_time);
  hist("sim_step_lag_seconds",
       "Histogram of how late each step was delivered against the simulated schedule, in "
       "simulated seconds (servebench extension).",
       step_lag);
  return out;
}

}  // namespace servebench::sim
