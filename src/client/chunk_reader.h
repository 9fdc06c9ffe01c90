// ReadChunk reads the facts StreamDecoder records from one OpenAI-compatible stream
// chunk (the `data:` payload of one SSE event) in a single pass of ScanJson
// (json_scanner.h): no DOM is built and nothing is allocated on the way (generated
// text and escaped strings aside), since this is most of the client's CPU per event
// (docs/bench.md, "The client's ceiling"). The whole chunk is still validated as JSON,
// as Boost.JSON would; only the members listed in ChunkFacts are looked at, and the
// characters of every other string are skipped, not decoded.
//
// Shapes read, as a DOM reader would read them (`x.y` = member y of object x):
//   choices[i].text, choices[i].delta.{content, reasoning_content, reasoning},
//   choices[i].delta.tool_calls[j].function.{name, arguments}: a non-empty string
//     makes the chunk carry tokens and sets its channel bit (metrics::kChannel*:
//     text and content are content, reasoning_content and reasoning are reasoning,
//     a function's name and arguments are a tool call); with `text` given, the strings
//     are appended in that order per choice (text, content, reasoning_content,
//     reasoning, tool calls).
//   choices[i].delta.tool_calls[j].index (an int64, default 0) and the function's
//     `arguments` string: one ToolCallFragment per tool call that has a function
//     object, whatever the member order.
//   choices[i].finish_reason (a string), usage.{completion_tokens, prompt_tokens}
//   (numbers), metrics.speculative_decoding.{num_spec_steps, num_draft_tokens,
//   num_accepted_draft_tokens, mean_acceptance_length}, the sim's servebench_send_ns,
//   servebench_sim_ns, servebench_sim_arrival_ns (integers) and
//   servebench_sim_time_scale (a number); a non-null `error` member or
//   `"object": "error"` marks the chunk as a server error.
// A member given twice counts its last value. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "metrics/request_record.h"

namespace servebench::client {

// One tool call's part of a chunk: the call's index and its `arguments` fragment.
struct ToolCallFragment {
  int64_t index = 0;
  std::string arguments;
};

struct ChunkFacts {
  bool server_error = false;  // an `error` member that is not null, or "object": "error"
  uint8_t channels = 0;       // kChannel* bits of the non-empty text strings; 0 = no token
  std::vector<ToolCallFragment> tool_calls;  // empty (unallocated) unless the chunk has any
  std::optional<std::string> finish_reason;  // the last choice's string finish_reason
  bool has_usage = false;                    // `usage` is an object
  std::optional<int64_t> completion_tokens, prompt_tokens;  // usage's, when numbers
  std::optional<metrics::RequestSpecStats> spec;  // metrics.speculative_decoding, an object
  std::optional<int64_t> send_ns, sim_ns, sim_arrival_ns;  // the sim's stamps, integers
  std::optional<double> sim_time_scale;
};

// Reads `data` into `facts` (which must be default-constructed); appends the text the
// choices carry to `text` when it is not null. Fails (InvalidArgument) when `data` is
// not one JSON object.
Status ReadChunk(std::string_view data, ChunkFacts* facts, std::string* text);

}  // namespace servebench::client
