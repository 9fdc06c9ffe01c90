// StreamDecoder turns the `data:` payloads of one OpenAI-compatible streaming
// response (/v1/completions or /v1/chat/completions) into the per-event facts of
// metrics.md §1–§2: tokens carried (k) and the channels of their text (reasoning,
// content, tool call), usage, finish, errors, per-request speculative-decoding stats
// and the JSON validity of returned tool calls. It writes into the request's
// RequestRecord.
// Not thread-safe: one decoder per in-flight request.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/request_record.h"

namespace servebench::client {

class StreamDecoder {
 public:
  // `record` must outlive the decoder; `keep_text` appends generated text to it.
  StreamDecoder(metrics::RequestRecord* record, bool keep_text)
      : record_(record), keep_text_(keep_text) {}

  // One event's data, read at t_ns. Returns false when the stream must end as a
  // failure (error object, malformed JSON); the record then holds the reason.
  bool OnData(std::string_view data, int64_t t_ns);

  // True once `[DONE]` arrived or a choice carried a finish_reason.
  bool finished() const { return finished_; }
  bool saw_done() const { return saw_done_; }
  int64_t events() const { return events_; }

  // Called when the HTTP body ended; sets the failure when the stream is
  // incomplete or carried no token, and counts the tool calls by whether each
  // one's whole `arguments` text is a JSON object.
  void OnEnd();

 private:
  metrics::RequestRecord* record_;
  bool keep_text_;
  bool finished_ = false;
  bool saw_done_ = false;
  bool all_token_events_had_usage_ = true;
  int64_t token_events_ = 0;
  int64_t events_ = 0;
  int64_t last_cum_completion_ = 0;
  // Each tool call's `arguments` fragments so far, by call index; empty unless the
  // stream returned tool calls.
  std::vector<std::string> tool_args_;
};

}  // namespace servebench::client
