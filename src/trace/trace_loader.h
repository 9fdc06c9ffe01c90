// Loading trace files into a Trace (trace.h). A path is one file or a folder of
// them (every *.json / *.jsonl inside, in name order, one format). The format is
// detected from the content unless given. Every row is checked when loading — types,
// ranges, unknown fields, hash-id layout (prompt_synthesis.h) — and the first bad one
// fails the load with file:line and the field, before anything is sent.
// Reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "trace/trace.h"

namespace servebench::trace {

struct TraceLoadOptions {
  // Unset: detected from the first row (Weka rows hold `requests`, Mooncake rows
  // `input_length`, Bailian rows `chat_id`, dag_jsonl rows `session_id` and `turns`; a
  // multi_turn file starts with `[`).
  std::optional<TraceFormat> format;
  // Mooncake and Bailian tokens per hash id (AIPerf --isl-block-size); 0 = the
  // format's (Mooncake 512, Bailian 16). Weka traces carry their own `block_size`.
  int64_t mooncake_block_tokens = 0;
};

// "mooncake_trace" | "weka_trace" | "bailian_trace" | "dag_jsonl" (AIPerf
// --dataset-name) | "multi_turn" (vLLM benchmarks/multi_turn). Fails naming the choices.
StatusOr<TraceFormat> ParseTraceFormat(std::string_view name);

// A --dataset-name that is a trace format (the one list of them: ParseTraceFormat).
bool IsTraceFormatName(std::string_view name);

// Fails when the path cannot be read, holds no rows, or its first row is neither
// format (the message says what each format's rows hold).
StatusOr<TraceFormat> DetectTraceFormat(const std::string& path);

StatusOr<Trace> LoadTrace(const std::string& path, const TraceLoadOptions& options = {});

}  // namespace servebench::trace
