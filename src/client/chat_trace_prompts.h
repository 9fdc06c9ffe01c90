// Chat prompts for a trace replay on a chat endpoint (docs/agentic.md, "Chat prompts"),
// made with the server's own tokenizer (server_tokenizer.h, /tokenize of messages):
//
//  - hash-id traces (mooncake_trace, weka_trace, bailian_trace): each turn becomes one
//    user message whose chat prompt is exactly the turn's input_length tokens, laid out
//    as trace/chat_prompt.h says (equal ids → identical words at identical positions,
//    so shared prefixes stay shared through the template). Every turn is counted once
//    through /tokenize and corrected until the count is exact; a turn that cannot be
//    made exact fails the run before anything is sent.
//  - text traces (dag_jsonl, multi_turn): each turn sends its recorded messages; the
//    server's token ids of them give the turn's input_length and its hash ids (one per
//    engine block, chained), so the expected-hit model reads them as any trace's.
//
// The prompts made here are pre-canned: the history holds the recorded (or, for hash
// ids, synthesized) assistant text. With --assistant-turns live a text trace's later
// turns are rebuilt at release with the server's replies (live_replies.h); the counts
// made here then hold for the messages as recorded. With --cache-bust
// first_turn_prefix every tree's user messages start with its marker
// (trace::CacheBustMarker, from a per-run id), and a hash-id tree becomes an id space
// of its own, as the marker makes it to the engine.
// Not thread-safe; called once by RunBench after the server answered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/client_settings.h"
#include "client/server_tokenizer.h"
#include "client/trace_replay.h"
#include "common/status.h"

namespace servebench::client {

// What the server's template and tokenizer measured, once per run.
struct ChatCalibration {
  std::vector<std::string> words;  // " word"s that are one token each, and do not merge
  int64_t head_tokens = 0;         // template tokens before a user message's content
  int64_t tail_tokens = 0;         // after it (end of message, assistant header)
  bool head_measured = false;      // false: the answer listed no token ids (head taken as 0)
};

// Fails when the tokenizer cannot count messages or fewer than 16 candidate words are
// one token each.
StatusOr<ChatCalibration> CalibrateChat(const ChatTokenizer& tokenize);

// Fills `workload->prompts` (and, for text traces, each turn's input_length, hash ids
// and multi_turn output length) for a chat replay. `run_id` keys the cache-bust markers.
// Fails naming the turn (file:line) that cannot be made, or the calibration's reason.
Status MakeChatTracePrompts(const BenchSettings& settings, const ChatTokenizer& tokenize,
                            uint64_t run_id, TraceWorkload* workload);

}  // namespace servebench::client
