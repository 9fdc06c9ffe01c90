// The headline metrics of one load run: what every view of a result shows (the run
// report, the dashboard, `results`, `regress`). This file is the one definition of
// the derived ones (metrics.md §5, §6): throughput per GPU with InferenceX's meaning,
// the prefill/decode split of a multinode deployment's GPUs, and interactivity.
//
// A Headline is derived once, when a Record is built (or when a Record written before
// the Record carried one is read), from the result JSON (result_writer.h, a Record's
// `summary`) and the GPU topology; every consumer then reads its fields.
// Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servebench::metrics {

// GPUs behind the server, for per-GPU throughput (metrics.md §6). Either a single
// node (num_gpus) or a multinode topology (prefill P, decode D).
struct GpuTopology {
  int num_gpus = 0;      // single node; 0 = unknown (no per-GPU numbers)
  int prefill_gpus = 0;  // multinode; used when > 0
  int decode_gpus = 0;   // multinode; 0 with prefill_gpus > 0 = aggregated multinode
  bool multinode() const { return prefill_gpus > 0; }
  // GPUs in all: num_gpus, or P + D; 0 when unknown.
  int total() const { return multinode() ? prefill_gpus + decode_gpus : num_gpus; }
};

// One engine replica's parallelism: what its GPU count follows from.
struct ReplicaShape {
  int tp = 1, pp = 1, pcp_size = 1, ep = 1;
};

// A single node runs N = tp × pp × pcp GPUs (decode context parallelism reuses the
// TP GPUs; metrics.md §6). Values below 1 count as 1.
GpuTopology SingleNodeTopology(const ReplicaShape& shape);

// A multinode deployment: per role `workers × g`, g = max(tp × pp × pcp, ep) — vLLM
// rows write DEP8 as tp 1, ep 8, which is 8 GPUs (disagg.md §1). decode_workers 0 is
// an aggregated multinode session.
GpuTopology MultinodeTopology(int prefill_workers, const ReplicaShape& prefill, int decode_workers,
                              const ReplicaShape& decode);

// Per-GPU throughput (metrics.md §6), in tok/s/GPU.
struct PerGpuThroughput {
  // Total tokens (input + output) per GPU: InferenceX's tput_per_gpu.
  double tput_per_gpu = 0;
  // Output tokens per GPU; multinode: per decode GPU (per GPU when there are none).
  double output_tput_per_gpu = 0;
  // Input tokens per GPU; multinode: per prefill GPU.
  double input_tput_per_gpu = 0;
};

// nullopt when the topology is unknown (no GPUs).
std::optional<PerGpuThroughput> PerGpu(double total_token_throughput, double output_throughput,
                                       const GpuTopology& gpus);

// Interactivity in tok/s/user from a TPOT statistic in ms: 1000 / tpot (metrics.md §5;
// the median interactivity is the one at the median TPOT). nullopt when tpot ≤ 0.
std::optional<double> Interactivity(double tpot_ms);

// The headline of one run. A metric the run did not produce is nullopt (shown as
// missing, never as 0).
struct Headline {
  int64_t completed = 0;  // successful requests
  int64_t failed = 0;     // failed requests (any makes the run invalid, metrics.md §8)
  // ---- Throughput (metrics.md §6) ----
  std::optional<double> request_throughput;      // req/s
  std::optional<double> output_throughput;       // tok/s
  std::optional<double> input_throughput;        // tok/s
  std::optional<double> total_token_throughput;  // tok/s, input + output
  std::optional<double> tput_per_gpu;            // PerGpuThroughput
  std::optional<double> output_tput_per_gpu;
  std::optional<double> input_tput_per_gpu;
  // ---- Latency, ms, over successful requests (metrics.md §3, §4) ----
  std::optional<double> median_ttft_ms, p99_ttft_ms;
  std::optional<double> median_tpot_ms, p99_tpot_ms;
  std::optional<double> median_itl_ms, p99_itl_ms;
  std::optional<double> median_e2el_ms, p99_e2el_ms;
  // Time to first output (content or tool call, not reasoning; docs/metrics.md
  // "Channels"): servebench.stats.ttfo_ms of the result. Equals TTFT without reasoning.
  std::optional<double> median_ttfo_ms, p99_ttfo_ms;
  // ---- Interactivity, tok/s/user (metrics.md §5) ----
  std::optional<double> median_intvty;  // Interactivity(median TPOT)
  std::optional<double> p99_intvty;     // Interactivity(p99 TPOT): the slowest users
  // ---- Speculative decoding (metrics.md §7) ----
  std::optional<double> acceptance_length;
  // ---- GPU power (docs/power.md): the result's servebench.power, valid power only ----
  std::optional<double> avg_power_w;              // W per GPU over the measured window
  std::optional<double> total_gpu_energy_j;       // J, all GPUs of the point, the window
  std::optional<double> joules_per_output_token;  // J / output token
  std::optional<double> output_tokens_per_joule;  // output tokens / J (tok/s per W)
  // ---- Tool calls (docs/metrics.md "Channels"): servebench.tool_calls of the result ----
  // valid / (valid + invalid): the share of returned tool calls whose arguments are a
  // JSON object. nullopt when the run returned no tool call.
  std::optional<double> tool_call_valid_fraction;
  // ---- SLO search (docs/search.md): the answer of a `servebench search` ----
  // The highest concurrency / request rate whose probe met every limit; only the
  // record of a search's answer has one (nullopt when even the minimum failed).
  std::optional<double> max_concurrency_at_slo;
  std::optional<double> max_request_rate_at_slo;  // req/s

  bool operator==(const Headline&) const = default;
};

// One named metric of the Headline: the name every output uses for it (record JSON
// key, report column, dashboard field, verdict metric), and what it is.
struct HeadlineMetric {
  std::string_view name;  // "tput_per_gpu"
  std::optional<double> Headline::*field;
  std::string_view unit;     // "tok/s/GPU"
  std::string_view meaning;  // one line for people (record/README.md's table)
  int decimals = 1;          // how reports print it: {:.<decimals>f}
};

// `value` as reports print `metric` ("-" when missing): every table that shows a
// headline number shows the same text for it.
std::string FormatHeadlineValue(const HeadlineMetric& metric, std::optional<double> value);

// Every metric of the Headline, in display order. Adding a metric: a field above, a
// row here, and its derivation in HeadlineFromResult.
const std::vector<HeadlineMetric>& HeadlineMetrics();

// The metric called `name`, or nullptr.
const HeadlineMetric* FindHeadlineMetric(std::string_view name);

// Derives the headline from a result JSON (BuildResultJson's format, or the median
// of repetitions, run/aggregate.h): the vLLM-compatible keys at its top level, the
// acceptance length from `spec_decode_acceptance_length` (else
// servebench.spec_decode.acceptance_length), TTFO from servebench.stats.ttfo_ms
// (median, p99; null when the result has none), the power keys from servebench.power
// (null there when the power was invalid), the tool-call valid fraction from
// servebench.tool_calls (null without calls), a search answer's max_concurrency_at_slo /
// max_request_rate_at_slo from the top level (search/slo_search.h's JSON). Per-GPU
// throughput follows from `gpus`.
// Latencies of a run with no completed request are nullopt (the writer's 0.0 stands
// for an empty set there). Keys that are absent or not numbers give nullopt.
Headline HeadlineFromResult(const boost::json::object& result, const GpuTopology& gpus);

}  // namespace servebench::metrics
