// RunSummary: the metrics of one load run (metrics.md §3–§8), computed once from
// the RequestRecords and read by every writer. This is the only implementation of
// the metric definitions in servebench. Pure computation; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
