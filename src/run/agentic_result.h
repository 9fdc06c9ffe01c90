// InferenceX's outputs of one agentic-coding point, from servebench's own per-request
// records, so InferenceX's tools read a servebench run as they read an AIPerf one
// (reference/agentic.md §1.5, §1.6, §4.2; docs/agentic.md "InferenceX's agentic
// outputs"):
//
//   <out>/inferencex/<RESULT_FILENAME>.json                 InferenceX's aggregate
//   <out>/inferencex/agentic_<RESULT_FILENAME>/aiperf_artifacts/
//       profile_export.jsonl        one AIPerf-shaped line per request (run/agentic_requests.h)
//       profile_export_aiperf.json  AIPerf's run aggregate: the counts the validator reads,
//                                   theoretical_prefix_cache_hit, metadata
//
// The aggregate is computed here, natively, by InferenceX's definitions (its
// process_agentic_result.py over the same files gives the same numbers; the test
// AgenticResultInferenceXTest checks that). What servebench does not measure is null or
// empty exactly as InferenceX writes it when absent: without /metrics scrapes of a
// vLLM-named engine no server_metrics_export.json is written (server_metrics.present =
// false), output_tokens_expected is empty (it needs
// the trace's top-level turns), full_response_itl is empty (AIPerf's
// full_response_inter_token_latency has no servebench counterpart). Single-node points
// only. Thread-safe: pure apart from the file reads and writes.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "recipe/point.h"
#include "run/agentic_requests.h"
#include "run/backends.h"
#include "run/engine_log_kv.h"

namespace servebench::run {

struct AgenticArtifacts {
  std::string aggregate_path;  // <out>/inferencex/<RESULT_FILENAME>.json (InferenceX's aggregate)
  std::string aiperf_dir;      // <out>/inferencex/agentic_<RESULT_FILENAME>/aiperf_artifacts/
};

// The workflow's RESULT_FILENAME of an agentic single-node point: the fixed-seq name
// (recipe/result_name.h); InferenceX appends "_recipe-<16 hex>" only when its job sets
// RECIPE_FINGERPRINT, which servebench has no counterpart of.
std::string AgenticResultName(const recipe::Point& point, const std::string& runner_node);

// AIPerf's profile_export_aiperf.json of the run: request_count, error_request_count
// and completed_request_count ({avg, unit}) over the profiling requests;
// theoretical_prefix_cache_hit ({avg in %, unit "%"}) from the result's
// servebench.prefix_cache.expected.block_fraction, absent when the run has none;
// metadata.{dataset (servebench.trace), scenario (null: servebench runs no AIPerf
// scenario), submission_valid, submission_invalid_reasons (servebench's validity)}.
boost::json::object AiperfAggregateJson(const std::vector<AgenticRequest>& requests,
                                        const LoadOutcome& load);

// InferenceX's aggregate (§1.5 keys, §4.2 definitions) of `requests` at `point`, with
// `aiperf` the object AiperfAggregateJson gave and `server_metrics_export` AIPerf's
// server_metrics_export.json when one was written (run/agentic_server_metrics.h; null:
// the server_metrics block is absent, as InferenceX writes it without one); floats
// rounded as InferenceX rounds them. Fails for a multinode point (its
// prefill_*/decode_* identity is not built yet).
// `log_kv` is the KV capacity the engine's log states (engine_log_kv.h): the aggregate's
// kv_cache_pool_tokens in the format of InferenceX's adapter (vLLM's, Dynamo's, SGLang's).
StatusOr<boost::json::object> AgenticAggregateJson(
    const std::vector<AgenticRequest>& requests, const boost::json::object& aiperf,
    const recipe::Point& point, const boost::json::object* server_metrics_export = nullptr,
    const LogKvCapacity& log_kv = {});

// InferenceX's round_floats: every finite double rounded to 5 decimals, and one whose
// rounded value is integral with |x| >= 1 written as an integer; recursively.
boost::json::value RoundFloats(const boost::json::value& v);

// Reads load.requests_path (and load.server_metrics_path, the /metrics scrapes, when
// there is one) and writes the files: also server_metrics_export.json when the scrapes
// are an engine's an adapter reads. `engine_log_path` (the engine's log file, or a serve
// session's folder of one log per process; "" for none) gives vLLM's KV capacity and is
// copied beside the artifacts (its first 64 MiB) as InferenceX expects it: server.log,
// or watchtower-<file>.out per process. Fails when the load did not complete or wrote
// no per-request records, on a bad record (path:line: field), for a multinode point, or
// when a file cannot be written.
StatusOr<AgenticArtifacts> WriteAgenticResult(const std::string& out_dir,
                                              const recipe::Point& point,
                                              const std::string& runner_node,
                                              const LoadOutcome& load,
                                              const std::string& engine_log_path = "");

}  // namespace servebench::run
