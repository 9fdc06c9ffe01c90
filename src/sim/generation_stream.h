// GenerationStream: one generation request between the engine and its HTTP
// connection. It receives token counts from the Engine (TokenSink), turns them
// into text (TextSource) on its channel — a chat request's first
// --reasoning-tokens tokens are reasoning (`delta.reasoning_content`), the rest
// content, or the arguments of a tool call when the request asks for one
// (ToolCallText) — applies stop strings (to content) and --stream-interval, applies
// the stream faults (disconnect, stall, malformed event), and writes vLLM-shaped
// SSE chunks — or, for stream=false, one JSON response at the end.
// Not thread-safe: loop thread only. Owned by SimServer; it tells the server when
// it is done (the server then deletes it after the current call returns).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/http_server.h"
#include "sim/openai_request.h"
#include "sim/sim_settings.h"
#include "sim/text_source.h"
#include "sim/tool_call_text.h"

namespace servebench::sim {

struct StreamContext {
  HttpServer* http;
  EventLoop* loop;
  Engine* engine;
  const Tokenizer* tokenizer;
  std::string model_name;
  int stream_interval = 1;
  bool send_time_field = false;
  // Stamp every chunk with its simulated time (time_scale != 1; docs/simulator.md).
  bool sim_time_stamps = false;
  // Chat: the first this many output tokens of each request are reasoning
  // (`servebench sim --reasoning-tokens`); 0 = none.
  int reasoning_tokens = 0;
};

// Fault decisions for this one request, drawn by the server.
struct StreamFaults {
  int disconnect_after_tokens = -1;
  double stall_ms = 0;
  int stall_after_tokens = 0;
  int malformed_after_tokens = -1;
};

class GenerationStream final : public TokenSink {
 public:
  GenerationStream(const StreamContext& ctx, ConnId conn, GenerationRequest request,
                   std::string request_id, TextSource text, StreamFaults faults,
                   std::function<void()> on_done);

  // Sends the response head (streaming) and records the engine id.
  void Start(uint64_t engine_id);
  bool OnTokens(int count, FinishReason finish) override;
  // The connection is gone: abort in the engine; no more writes.
  void ConnectionLost();
  ConnId conn() const { return conn_; }

 private:
  // Splits `count` new tokens over the channels and appends their text to the
  // pending reasoning, content or tool-call buffer.
  void AppendTokenText(int count, FinishReason finish);
  // One chunk: `reasoning`, `text` (content) and `tool_args`, each omitted when empty.
  void EmitChunk(std::string_view reasoning, std::string_view text, std::string_view tool_args,
                 FinishReason finish);
  // `,"tool_calls":[...]` of a delta (the first one names the call) or of a message.
  void AppendToolCall(std::string* out, std::string_view args, bool first) const;
  void EmitFinal();
  // `stamps`: send-time placeholder offsets in `sse` (HttpServer::WriteChunk).
  void Write(std::string_view sse, const std::vector<size_t>& stamps);
  void BeginChunk(std::string* out) const;
  void EndChunk(std::string* out, bool with_usage, std::vector<size_t>* stamps);
  // `"servebench_sim_ns":T` (and, on the first chunk, the arrival and time scale).
  void AppendSimTime(std::string* out);
  void Done();

  StreamContext ctx_;
  ConnId conn_;
  GenerationRequest req_;
  std::string id_;
  int64_t created_;
  TextSource text_;
  StreamFaults faults_;
  std::function<void()> on_done_;
  uint64_t engine_id_ = 0;
  bool done_ = false;
  bool role_sent_ = false;
  bool sim_arrival_sent_ = false;
  int completion_tokens_ = 0;  // tokens generated (what usage reports)
  int sent_tokens_ = 0;        // tokens whose text has been written
  int pending_tokens_ = 0;     // generated, not yet written (stream interval)
  std::string pending_text_;
  // Chat channels (StreamContext::reasoning_tokens, GenerationRequest::tool_call_name):
  // reasoning and tool-call text generated, not yet written; non-streaming: the whole.
  std::string pending_reasoning_;
  std::string pending_tool_args_;
  ToolCallText tool_call_{&text_};
  bool tool_call_named_ = false;  // the delta naming the call has been written
  std::string full_text_;  // non-streaming: the whole output; streaming: tail for stop matching
  FinishReason finish_ = FinishReason::kNone;
  std::string stop_reason_;  // the stop string that ended it
  bool malformed_done_ = false;
  // Stall fault: output is held until stall_until_ns_.
  bool stall_done_ = false;
  int64_t stall_until_ns_ = 0;
  std::string held_;
  std::vector<size_t> held_stamps_;
  bool end_after_held_ = false;
};

}  // namespace servebench::sim
