#include "client/openai_stream.h"

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <vector>

#include "client/chunk_reader.h"

namespace servebench::client {
namespace {

namespace json = boost::json;
using metrics::FailureKind;

// The message of a chunk ReadChunk marked as a server error. Errors end the stream,
// so this slow path (a DOM parse) runs at most once per request.
std::string ServerErrorMessage(std::string_view data) {
  json::error_code ec;
  json::value v = json::parse(data, ec);
  if (!ec && v.is_object()) {
    if (const json::value* err = v.get_object().if_contains("error"); err && !err->is_null()) {
      return "server error in stream: " + json::serialize(*err).substr(0, 300);
    }
  }
  return "server error in stream: " + std::string(data.substr(0, 300));
}

// Calls beyond this index are ignored: a stream naming call 10,000 is not worth
// 10,000 empty strings.
constexpr int64_t kMaxToolCalls = 128;

}  // namespace

bool StreamDecoder::OnData(std::string_view data, int64_t t_ns) {
  ++events_;
  if (data == "[DONE]") {
    saw_done_ = true;
    finished_ = true;
    return true;
  }
  // One SAX pass, no DOM (chunk_reader.h): this is the client's per-event hot path.
  ChunkFacts chunk;
  std::string* text = keep_text_ ? &record_->generated_text : nullptr;
  const size_t text_before = text != nullptr ? text->size() : 0;
  if (Status s = ReadChunk(data, &chunk, text); !s.ok()) {
    if (text != nullptr) text->resize(text_before);
    record_->failure = FailureKind::kMalformed;
    record_->error = "stream event is not a JSON object: " + std::string(data.substr(0, 200));
    return false;
  }
  if (chunk.server_error) {
    if (text != nullptr) text->resize(text_before);
    record_->failure = FailureKind::kStreamError;
    record_->error = ServerErrorMessage(data);
    return false;
  }
  const bool carries = chunk.channels != 0;
  // Each call's `arguments` fragments, joined by call index (OpenAI streams a call's
  // arguments as fragments of one JSON text; a call whose first delta has a name and
  // no arguments still gets its slot, so a call with no arguments is counted).
  for (const ToolCallFragment& f : chunk.tool_calls) {
    if (f.index < 0 || f.index >= kMaxToolCalls) continue;
    if (tool_args_.size() <= static_cast<size_t>(f.index)) tool_args_.resize(f.index + 1);
    tool_args_[f.index] += f.arguments;
  }
  if (chunk.finish_reason) {
    record_->finish_reason = std::move(*chunk.finish_reason);
    finished_ = true;
  }
  int64_t k = carries ? 1 : 0;
  if (chunk.has_usage) {
    if (chunk.prompt_tokens) record_->usage_prompt_tokens = *chunk.prompt_tokens;
    int64_t cum = chunk.completion_tokens.value_or(-1);
    if (cum >= 0) {
      record_->usage_completion_tokens = cum;
      // Per-chunk (continuous) usage: k is the growth of the cumulative count.
      if (carries) k = std::max<int64_t>(cum - last_cum_completion_, 1);
      last_cum_completion_ = cum;
    }
  }
  if (carries) {
    if (!chunk.has_usage) all_token_events_had_usage_ = false;
    ++token_events_;
    if (record_->t_first_token_ns < 0) {
      record_->t_first_token_ns = t_ns;
      if (chunk.send_ns) record_->server_first_token_send_ns = *chunk.send_ns;
    }
    record_->t_last_token_ns = t_ns;
  }
  if (chunk.spec) record_->spec = *chunk.spec;
  // A simulated server with a compressed clock stamps its simulated time on every
  // chunk and the request's arrival on the first (metrics/simulated_time.h).
  int64_t sim_t = -1;
  if (chunk.sim_ns) {
    sim_t = *chunk.sim_ns;
    if (chunk.sim_arrival_ns) record_->sim_arrival_ns = *chunk.sim_arrival_ns;
    if (chunk.sim_time_scale) record_->sim_time_scale = *chunk.sim_time_scale;
  }
  record_->events.push_back({t_ns, static_cast<int32_t>(k), chunk.channels, sim_t});
  return true;
}

void StreamDecoder::OnEnd() {
  // Each returned tool call's arguments, whole: valid when they parse as a JSON object.
  for (const std::string& args : tool_args_) {
    json::error_code ec;
    json::value parsed = json::parse(args, ec);
    if (!ec && parsed.is_object()) {
      ++record_->tool_calls_valid;
    } else {
      ++record_->tool_calls_invalid;
    }
  }
  tool_args_.clear();
  if (token_events_ > 0 && all_token_events_had_usage_) {
    record_->k_source = metrics::KSource::kContinuousUsage;
    record_->saw_continuous_usage = true;
  } else if (token_events_ > 0) {
    // k = 1 per event; rewrite usage-derived k so every k has one source.
    for (metrics::StreamEvent& e : record_->events) {
      if (e.k > 1) e.k = 1;
    }
    record_->k_source = metrics::KSource::kOne;
  }
  if (record_->failure != metrics::FailureKind::kNone) return;
  if (!finished_) {
    record_->failure = metrics::FailureKind::kRead;
    record_->error = "stream ended without [DONE] or a finish_reason";
  } else if (token_events_ == 0) {
    record_->failure = metrics::FailureKind::kNoTokens;
    record_->error = "stream ended without any token-carrying event";
  }
}

}  // namespace servebench::client
