// The server side of InferenceX's agentic outputs of one point, from the engine's
// /metrics scraped over the measured phase (metrics/scrape_series.h; reference
// agentic.md §1.5, §4.3; docs/agentic.md "InferenceX's agentic outputs"):
//
//   AIPerf's server_metrics_export.json   per metric name {type, description, unit,
//       series[{endpoint_url, labels, stats}]}: a gauge's stats {avg, min, max, std,
//       p1 … p99} over the scrapes, a counter's (named without "_total") {total, rate,
//       rate_avg, rate_min, rate_max, rate_std} from its increase between them.
//       Histograms and per-slice timeslices are not exported.
//   InferenceX's server_metrics block      filled from that export as InferenceX's
//       adapter for the engine's metric names fills it (utils/agentic/aggregation/
//       backends/): vllm.py for vllm: names (vLLM, servebench's sim) — cache hit rates
//       and counters, KV usage (max over series), KV offload bytes and times, token
//       totals and prompt tokens by source — and sglang.py for sglang: names — cached
//       tokens by source (device, HiCache host) over prompt tokens, token usage, the
//       pool's max_total_num_tokens, HiCache host usage.
//
// ATOM's and Dynamo's adapters are not here: their series give no export, and the
// block stays absent as before.
// Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/scrape_series.h"

namespace servebench::run {

// AIPerf's server_metrics_export.json of `scrapes` from `endpoint_url`; nullopt when
// there are none or they hold no "vllm:" or "sglang:" metric (no adapter would read them).
std::optional<boost::json::object> ServerMetricsExportJson(
    const std::vector<metrics::TimedScrape>& scrapes, const std::string& endpoint_url);

// InferenceX's server_metrics block (present: true, adapter "vllm") from an export
// ServerMetricsExportJson made. `requests_completed`, `prompt_tokens` and
// `generation_tokens` are the profiled records' (InferenceX's apply_profile_totals:
// the count always, the token totals where the engine's counters are absent).
boost::json::object VllmServerMetricsBlock(const boost::json::object& export_json,
                                           int64_t requests_completed, int64_t prompt_tokens,
                                           int64_t generation_tokens);

// InferenceX's empty_server_metrics (backends/base.py): every key of the block, null
// (empty maps and lists); what an adapter fills, and the block without an export.
boost::json::object EmptyServerMetricsBlock(bool present, size_t metric_count);

// The adapter InferenceX's detect_backend picks for an export, of those here:
// "sglang" when a metric is sglang:-named, else "vllm" when one is vllm:-named, else "".
std::string ServerMetricsAdapter(const boost::json::object& export_json);

// InferenceX's server_metrics block (present: true, adapter "sglang"), as sglang.py
// fills it; the same arguments as VllmServerMetricsBlock.
boost::json::object SglangServerMetricsBlock(const boost::json::object& export_json,
                                             int64_t requests_completed, int64_t prompt_tokens,
                                             int64_t generation_tokens);

// The block of the export's adapter (ServerMetricsAdapter; vLLM's when neither).
boost::json::object EngineServerMetricsBlock(const boost::json::object& export_json,
                                             int64_t requests_completed, int64_t prompt_tokens,
                                             int64_t generation_tokens);

}  // namespace servebench::run
