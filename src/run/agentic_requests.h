// The requests of one agentic replay as InferenceX's aggregator sees them: servebench's
// per-request JSONL (metrics/result_writer.h RequestRecordJson, plus the turn fields of
// client/trace_replay.h: tree, conversation, turn_index) read back, each request's
// metrics derived once by servebench's definitions (docs/metrics.md), and written as
// the line AIPerf's profile_export.jsonl holds for it, so InferenceX's
// utils/agentic/aggregation reads a servebench run as it reads an AIPerf one
// (reference/agentic.md §1.5). Pure apart from the file read; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::run {

// Wall clock of a run: servebench stamps requests on CLOCK_MONOTONIC and records one
// (realtime, monotonic) pair in its result (servebench.run.anchor_*_ns); AIPerf's
// request_start_ns / request_end_ns are Unix ns. Both 0: the stamps are kept as they are.
struct ClockAnchor {
  int64_t realtime_ns = 0;
  int64_t monotonic_ns = 0;
  int64_t ToUnixNs(int64_t monotonic) const { return monotonic - monotonic_ns + realtime_ns; }
};

// One request of the per-request JSONL.
struct AgenticRequest {
  size_t line = 0;      // 1-based line in the JSONL, for messages
  bool warmup = false;  // AIPerf benchmark_phase "warmup" (else "profiling")
  bool ok = false;
  std::string tree, conversation;    // "" for a request that is no trace turn (warm-ups)
  int64_t turn_index = -1;           // -1: none
  int64_t start_ns = 0, end_ns = 0;  // Unix ns: sent, done (AIPerf request_start/end_ns)
  int64_t input_tokens = 0, output_tokens = 0;
  // Milliseconds, by servebench's definitions (metrics/run_summary.h): TTFT = first
  // token − sent; E2EL = last token − sent; ITL = (E2EL − TTFT) / (n − 1) (AIPerf's
  // inter_token_latency, servebench's TPOT), none when n ≤ 1. None on a failure.
  std::optional<double> ttft_ms, e2el_ms, itl_ms;
  std::string failure, error;  // failure kind name and its message, on a failure
  int http_status = 0;
};

// Reads `path` (servebench's per-request JSONL; every line is one request, warm-ups
// included, no header). A missing or mistyped field fails with "path:N: field ...".
StatusOr<std::vector<AgenticRequest>> ReadAgenticRequests(const std::string& path,
                                                          const ClockAnchor& anchor);

// The request as AIPerf's profile_export.jsonl line: metadata.{conversation_id,
// turn_index, benchmark_phase, request_start_ns, request_end_ns, x_correlation_id
// (null: servebench sends no X-Correlation-ID), was_cancelled}, metrics.<name>.{value,
// unit} for input/output_sequence_length, time_to_first_token, request_latency and
// inter_token_latency, and error {code, type, message} (null on a success).
boost::json::object AiperfRecordJson(const AgenticRequest& request);

}  // namespace servebench::run
