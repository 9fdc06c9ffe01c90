// The `vllm bench serve`-compatible result JSON (vllm-bench-result.md) built from a
// RunSummary. Top-level keys are exactly upstream's, in emission order, plus
// InferenceX's benchmark_start_time_unix / benchmark_end_time_unix; every
// servebench-only field lives under the nested "servebench" object, whose shape is
// the same for every run (perf-eval compares key sets across repetitions).
// The run/ module embeds this object as a Record's `summary` (record/README.md), and
// metrics/headline.h derives the Record's headline from it.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/request_record.h"
#include "metrics/run_summary.h"

namespace servebench::metrics {

// Everything in the result that is not a measurement.
struct ResultHeader {
  std::string date;  // "YYYYMMDD-HHMMSS", local time
  std::string backend = "openai";
  std::string label;  // empty → null
  std::string model_id;
  std::string tokenizer_id;  // empty → null
  int64_t num_prompts = 0;
  std::vector<std::pair<std::string, std::string>> metadata;  // --metadata KEY=VALUE
  double request_rate = 0;                                    // 0 or inf → "inf"
  double burstiness = 1.0;
  int64_t max_concurrency = 0;  // 0 = unlimited (see BuildResultJson)
  // Metrics with top-level statistics (--percentile-metrics): ttft, tpot, itl, e2el.
  std::vector<std::string> percentile_metrics = {"ttft", "tpot", "itl"};
  // --metric-percentiles; each must also be in SummaryInputs.percentiles.
  std::vector<double> metric_percentiles = {99};
  double benchmark_start_time_unix = 0, benchmark_end_time_unix = 0;
  bool save_detailed = false;  // per-request arrays input_lens, ttfts, itls, ...
  // Merged into "servebench" (run settings, client self-measurement, provenance).
  boost::json::object servebench_extra;
};

// The result object. Per-request arrays come from `records` (measured only, in
// index order). An unlimited max_concurrency is written as num_prompts (InferenceX
// converts the key with int(), so null would crash it), and the request is kept as
// servebench.max_concurrency_requested = null.
boost::json::object BuildResultJson(const RunSummary& summary, const ResultHeader& header,
                                    const std::vector<RequestRecord>& records);

// The same result in the key set of InferenceX's fork of the script
// (vllm-bench-result.md §2): fork key order, `best_of`, `request_goodput:` (the
// fork's trailing colon), no endpoint_type/label/failed/latencies/queue_times/
// start_times/max_output_tokens_per_s/max_concurrent_requests/rtfx/spec_decode_*,
// input_lens/output_lens always, and total_input_tokens summed from the client's
// own prompt lengths. The "servebench" object is kept (nested; never ingested).
boost::json::object BuildInferenceXResultJson(const RunSummary& summary, const ResultHeader& header,
                                              const std::vector<RequestRecord>& records);

// The servebench-only object alone (also used for the terminal table).
boost::json::object BuildServebenchObject(const RunSummary& summary);

// One JSONL line per request with every timestamp (--save-detailed).
boost::json::object RequestRecordJson(const RequestRecord& record);

// The upstream file name: "{label}-{rate}qps[-concurrency{N}]-{model basename}-{date}.json".
std::string DefaultResultFilename(const ResultHeader& header);

// The summary table people know from `vllm bench serve`, as text.
std::string FormatSummaryTable(const RunSummary& summary, const ResultHeader& header);

}  // namespace servebench::metrics
