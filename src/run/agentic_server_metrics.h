// The server side of InferenceX's agentic outputs of one point, from the engine's
// /metrics scraped over the measured phase (metrics/scrape_series.h; reference
// agentic.md §1.5, §4.3; docs/agentic.md "InferenceX's agentic outputs"):
//
//   AIPerf's server_metrics_export.json   per metric name {type, description, unit,
//       series[{endpoint_url, labels, stats}]}: a gauge's stats {avg, min, max, std,
//       p1 … p99} over the scrapes, a counter's (named without "_total") {total, rate,
//       rate_avg, rate_min, rate_max, rate_std} from its increase between them.
//       Per-slice timeslices are not exported.
//   InferenceX's server_metrics block      filled from that export as InferenceX's
//       adapter for the engine's metric names fills it (utils/agentic/aggregation/
//       backends/): vllm.py for vllm: names (vLLM, servebench's sim) — cache hit rates
//       and counters, KV usage (max over series), KV offload bytes and times, token
//       totals and prompt tokens by source — and sglang.py for sglang: names — cached
//       tokens by source (device, HiCache host) over prompt tokens, token usage, the
//       pool's max_total_num_tokens, HiCache host usage; atom.py for atom: / atom_
//       names (ATOM workers, Atomesh) — prefix-cache and LMCache tokens over full
//       tokens, KV usage, token totals; dynamo_vllm.py for dynamo_ names (a Dynamo
//       frontend and its vLLM workers) — vLLM's block with the frontend's token
//       totals, then the frontend's cache hit rate and the router's hit rates.
//   A histogram (its _sum and _count; the buckets are not kept) is exported as AIPerf
//   exports one without buckets: stats {count, sum, avg, count_rate, sum_rate}.
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
// there are none or they hold no metric an adapter here reads ("vllm:", "sglang:",
// "atom:", "atom_", "dynamo_"): InferenceX refuses an export no adapter matches.
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

// The adapter InferenceX's detect_backend picks for an export, in its order:
// "dynamo-vllm" when a metric is dynamo_-named, else "atom" (atom: or atom_), "sglang",
// "vllm"; "" when none matches.
std::string ServerMetricsAdapter(const boost::json::object& export_json);

// InferenceX's server_metrics block (present: true, adapter "sglang"), as sglang.py
// fills it; the same arguments as VllmServerMetricsBlock.
boost::json::object SglangServerMetricsBlock(const boost::json::object& export_json,
                                             int64_t requests_completed, int64_t prompt_tokens,
                                             int64_t generation_tokens);

// InferenceX's block for a Dynamo frontend (adapter "dynamo-vllm", dynamo_vllm.py) and
// for ATOM (adapter "atom", atom.py); the same arguments as VllmServerMetricsBlock.
boost::json::object DynamoVllmServerMetricsBlock(const boost::json::object& export_json,
                                                 int64_t requests_completed, int64_t prompt_tokens,
                                                 int64_t generation_tokens);
boost::json::object AtomServerMetricsBlock(const boost::json::object& export_json,
                                           int64_t requests_completed, int64_t prompt_tokens,
                                           int64_t generation_tokens);

// The block of the export's adapter (ServerMetricsAdapter; vLLM's when none).
boost::json::object EngineServerMetricsBlock(const boost::json::object& export_json,
                                             int64_t requests_completed, int64_t prompt_tokens,
                                             int64_t generation_tokens);

}  // namespace servebench::run
