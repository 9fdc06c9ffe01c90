// RunSummary: the metrics of one load run (metrics.md §3–§8), computed once from
// the RequestRecords and read by every writer. This is the only implementation of
// the metric definitions in servebench. Pure computation; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metrics/channels.h"
#include "metrics/headline.h"
#include "metrics/percentile.h"
#include "metrics/prometheus.h"
#include "metrics/request_record.h"
#include "metrics/validity.h"

namespace servebench::metrics {

// Service-level objectives for goodput, in ms; a missing one is not checked.
struct GoodputSlo {
  std::optional<double> ttft_ms, tpot_ms, e2el_ms;
  bool any() const { return ttft_ms || tpot_ms || e2el_ms; }
};

// What the summary needs besides the records.
struct SummaryInputs {
  int64_t requested_prompts = 0;    // measured prompts asked for (warm-ups excluded)
  int64_t main_phase_start_ns = 0;  // start of the measured schedule (after warm-up)
  std::vector<double> percentiles = {90, 99, 99.9};
  GoodputSlo goodput;
  GpuTopology gpus;
  bool ignore_eos = false;
  bool spec_decoding_on = false;                        // the server runs speculative decoding
  std::optional<SpecCounters> spec_before, spec_after;  // Prometheus scrapes
  double client_issue_delay_limit_ms = 1.0;             // validity rule client_saturated
  // The simulated engine's schedule lateness (prometheus.h), and the limit of the
  // validity rule server_lagged on its P99, in simulated ms.
  std::optional<LagHistogramCounts> lag_before, lag_after;
  double server_lag_limit_ms = 1.0;
};

// One output channel over the successful requests (docs/metrics.md "Channels").
struct ChannelSummary {
  int64_t requests = 0;      // requests with at least one event of this channel
  int64_t total_tokens = 0;  // Σ of their tokens in this channel
  Stats time_to_first;       // ms, first event of the channel − t_sent, over those requests
  Stats tokens;              // tokens per request, over those requests
};

// Tool calls returned by the successful requests, by the JSON validity of each
// call's `arguments` (client/openai_stream.h).
struct ToolCallCounts {
  int64_t valid = 0;                       // calls whose arguments are a JSON object
  int64_t invalid = 0;                     // calls whose arguments are not (e.g. truncated)
  int64_t requests_without_tool_call = 0;  // successful requests that returned none
};

struct RunSummary {
  int64_t requested = 0, completed = 0, failed = 0;
  int64_t main_phase_start_ns = 0;  // copied from SummaryInputs
  double duration_s = 0;
  int64_t total_input_tokens = 0, total_output_tokens = 0;
  double request_throughput = 0, output_throughput = 0, input_throughput = 0,
         total_token_throughput = 0;
  std::optional<double> request_goodput;  // null without SLOs
  double max_output_tokens_per_s = 0;
  int64_t max_concurrent_requests = 0;
  std::optional<PerGpuThroughput> per_gpu;  // metrics/headline.h PerGpu

  // Milliseconds, over successful requests (metrics.md §4).
  Stats ttft, ttft_from_schedule, tpot, itl, itl_per_token, e2el, e2el_from_schedule, issue_delay,
      client_queue_time;
  // Time to first output (content or tool call, never reasoning) − t_sent, ms, over
  // the successful requests that produced output (metrics/channels.h; AIPerf's TTFO).
  Stats ttfo;
  // Per channel, indexed by metrics::Channel.
  std::array<ChannelSummary, kChannelCount> channels;
  int64_t requests_without_output = 0;  // successful, but only reasoning (no TTFO)
  ToolCallCounts tool_calls;
  // 1 / (E2EL/n) per request, in seconds per token, for e2e_norm_intvty (§5).
  Stats e2el_per_token_s;
  // Interactivity (metrics/headline.h) of each tpot statistic, keyed "mean", "median", "p90", ...
  std::map<std::string, double> intvty;
  std::map<std::string, double> e2e_norm_intvty;

  std::map<std::string, int64_t> n_sources;            // successful requests per n source
  std::map<std::string, int64_t> prompt_sources;       // successful requests per prompt source
  std::map<std::string, int64_t> failures;             // failed requests per FailureKind name
  std::map<std::string, std::string> failure_samples;  // per FailureKind name: its first error
  std::vector<std::string> sample_errors;              // first few error lines, for people

  std::optional<SpecAcceptance> spec;          // from Prometheus deltas
  std::optional<ServerLag> server_lag;         // simulated engines only
  std::optional<double> spec_request_mean_al;  // request-weighted, per-request stats
  Validity validity;
};

// Computes the summary of `records` (warm-ups are skipped). Never fails: empty
// sets give empty Stats and the validity rules say what is wrong.
RunSummary ComputeRunSummary(const std::vector<RequestRecord>& records,
                             const SummaryInputs& inputs);

// The percentile key suffix: "99" for 99, "99.9" for 99.9 (metrics.md §4).
std::string PercentileLabel(double p);

}  // namespace servebench::metrics
