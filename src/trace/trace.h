// A replayable trace: recorded requests grouped into conversations and trees, in one
// shape whatever file format they came from (docs/agentic.md, "Formats").
//
//   Trace ─ trees ─ conversations ─ turns
//
// A tree is what one closed-loop lane holds (a Weka trajectory: root conversation plus
// its subagents; a Mooncake session; a Mooncake row without a session is a tree of one
// turn). Every turn is a complete prompt: its `input_tokens` and `hash_ids` already
// include the history, so a replay synthesizes each turn's prompt from its own ids
// (trace/prompt_synthesis.h) and equal leading ids give equal leading tokens.
//
// Block identity: an id means the same block only within one scope. Mooncake and
// Bailian files are one scope (ids are global to the file); a Weka trace is its own
// scope (`hash_id_scope: local`), shared by the root and its subagents.
// Values; loaded once, then read from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace servebench::trace {

// The file formats (AIPerf `--dataset-name` spellings, docs/agentic.md).
enum class TraceFormat {
  kMooncake,   // mooncake_trace: JSONL rows, `timestamp` ms, 512-token blocks
  kWeka,       // weka_trace: one trajectory per JSON object, subagents, 64-token blocks
  kBailian,    // bailian_trace: JSONL rows, `timestamp` s, chat_id sessions, 16-token blocks
  kDagJsonl,   // dag_jsonl (AIPerf): one conversation of chat messages per line, spawns/forks
  kMultiTurn,  // multi_turn (vLLM benchmarks/multi_turn): a JSON list of {id, messages}
};

// "mooncake_trace" / "weka_trace" / "bailian_trace" / "dag_jsonl" / "multi_turn".
std::string_view TraceFormatName(TraceFormat format);

// One message of a live turn's history: an authored message, or the server's reply to
// turn `reply_turn` of conversation `reply_conversation` of the same tree.
struct LivePiece {
  std::string message_json;  // a JSON object {role, content, ...}; empty for a reply
  int reply_conversation = -1;
  int reply_turn = -1;
  bool is_reply() const { return reply_turn >= 0; }
};

// One recorded request.
struct TraceTurn {
  std::string where;          // "file:line" (Weka: "file:line: requests[3]") for messages
  int64_t timestamp_ms = -1;  // start offset from the trace start; -1 when the row has none
  // Wait after the previous turn of the same conversation completed (end-to-start);
  // the first turn of a conversation waits its spawn offset instead.
  int64_t delay_ms = 0;
  int64_t input_tokens = 0;        // whole prompt, history included
  int64_t output_tokens = 0;       // sent as max_tokens
  std::vector<uint64_t> hash_ids;  // leading blocks of the prompt, in order

  // ---- Text formats only (dag_jsonl, multi_turn; Trace::text_messages) ----
  // The turn's whole message array as sent (a JSON array, history included, the
  // recorded assistant turns in it: pre-canned). input_tokens and hash_ids are 0 and
  // empty until the replay counts the array with the server's tokenizer.
  std::string messages_json;
  // More fields of the request body, as `,"k":v...` (dag_jsonl `tools` and `extra`).
  std::string body_fields_json;
  // multi_turn: the recorded assistant reply whose token count is max_tokens (vLLM's
  // default); output_tokens is 0 until the replay counts it. Empty otherwise.
  std::string answer_text;
  // The turn's messages with live assistant turns (--assistant-turns live), in order:
  // authored messages and, where the recorded history holds an earlier turn's reply
  // (multi_turn) or the format threads one in (dag_jsonl deltas_without_responses),
  // that turn's live reply. Empty where replies are not threaded (dag_jsonl
  // message_array_with_responses: each turn sends its own array).
  std::vector<LivePiece> live_messages;
};

// One conversation: a Mooncake session, a Weka root or one subagent.
struct TraceConversation {
  std::string id;   // session id; Weka "<trace>" or "<trace>::sa:<agent_id>"
  int parent = -1;  // index in the tree's conversations; -1 for the root
  // Children only: the parent turn whose completion spawns this child, the parent turn
  // that waits for it (-1: a background child nobody joins), and the child's start
  // offset after the spawn.
  int spawn_after_turn = -1;
  int join_before_turn = -1;
  int64_t spawn_offset_ms = 0;
  std::vector<TraceTurn> turns;
};

struct TraceTree {
  std::string id;
  uint64_t scope = 0;                            // block-id scope (see the top of this file)
  std::vector<TraceConversation> conversations;  // [0] is the root
};

struct Trace {
  TraceFormat format = TraceFormat::kMooncake;
  std::string path;
  int64_t block_size_tokens = 0;  // tokens per hash id
  bool has_timestamps = false;    // every root turn carries a timestamp: fixed schedule possible
  // Turns are chat messages (TraceTurn::messages_json), not hash ids: they replay on a
  // chat endpoint and are counted by the server's tokenizer (docs/agentic.md).
  bool text_messages = false;
  std::vector<TraceTree> trees;
  int64_t dropped_subagents =
      0;  // Weka subagents with no preceding parent turn (AIPerf drops them)

  int64_t num_turns() const;
};

}  // namespace servebench::trace
