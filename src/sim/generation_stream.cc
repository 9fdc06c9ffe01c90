#include "sim/generation_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "common/clock.h"

namespace servebench::sim {
namespace {
const char* FinishName(FinishReason r) {
  switch (r) {
    case FinishReason::kLength:
      return "length";
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kAbort:
      return "abort";
    default:
      return nullptr;
  }
}
}  // namespace

GenerationStream::GenerationStream(const StreamContext& ctx, ConnId conn, GenerationRequest request,
                                   std::string request_id, TextSource text, StreamFaults faults,
                                   std::function<void()> on_done)
    : ctx_(ctx),
      conn_(conn),
      req_(std::move(request)),
      id_(std::move(request_id)),
      created_(static_cast<int64_t>(std::time(nullptr))),
      text_(std::move(text)),
      faults_(faults),
      on_done_(std::move(on_done)) {}

void GenerationStream::Start(uint64_t engine_id) {
  engine_id_ = engine_id;
  if (req_.stream) ctx_.http->BeginStream(conn_, 200, "text/event-stream; charset=utf-8");
}

void GenerationStream::ConnectionLost() {
  if (done_) return;
  ctx_.engine->Abort(engine_id_);
  Done();
}

void GenerationStream::Done() {
  if (done_) return;
  done_ = true;
  on_done_();
}

bool GenerationStream::OnTokens(int count, FinishReason finish) {
  if (done_) return false;
  size_t before = pending_text_.size();
  AppendTokenText(count, finish);
  completion_tokens_ += count;
  pending_tokens_ += count;
  bool keep_going = true;
  if (!req_.stop.empty() && count > 0) {
    // Look for a stop string in the recent tail plus the new text.
    size_t longest = 0;
    for (const auto& s : req_.stop) longest = std::max(longest, s.size());
    std::string_view tail = full_text_;
    if (tail.size() > longest) tail = tail.substr(tail.size() - longest);
    std::string window = std::string(tail) + pending_text_.substr(0, pending_text_.size());
    size_t best = std::string::npos;
    const std::string* which = nullptr;
    for (const auto& s : req_.stop) {
      size_t at = window.find(s, tail.size() >= s.size() ? tail.size() - s.size() + 1 : 0);
      if (at != std::string::npos && at < best) {
        best = at;
        which = &s;
      }
    }
    (void)before;
    if (which) {
      // Cut the output just before the stop string (vLLM's default,
      // include_stop_str_in_output = false).
      size_t cut_in_pending = best >= tail.size() ? best - tail.size() : 0;
      if (best < tail.size()) {
        // The stop began in text already written; nothing of the new text is kept.
        cut_in_pending = 0;
      }
      pending_text_.resize(cut_in_pending);
      finish = FinishReason::kStop;
      stop_reason_ = *which;
      keep_going = false;
    }
  }
  if (finish != FinishReason::kNone) finish_ = finish;
  if (req_.stream) {
    bool first = sent_tokens_ == 0 && pending_tokens_ > 0;
    if (finish_ != FinishReason::kNone || first || pending_tokens_ >= ctx_.stream_interval) {
      EmitChunk(pending_reasoning_, pending_text_, pending_tool_args_, finish_);
      pending_reasoning_.clear();
      pending_tool_args_.clear();
      sent_tokens_ += pending_tokens_;
      pending_tokens_ = 0;
      if (!req_.stop.empty()) {
        full_text_ += pending_text_;
        if (full_text_.size() > 4096) full_text_.erase(0, full_text_.size() - 1024);
      }
      pending_text_.clear();
    }
  } else {
    full_text_ += pending_text_;
    pending_text_.clear();
    sent_tokens_ = completion_tokens_;
  }
  if (finish_ != FinishReason::kNone) {
    EmitFinal();
    return false;
  }
  if (done_) return false;
  // Disconnect fault: drop the connection mid-stream.
  if (faults_.disconnect_after_tokens >= 0 && sent_tokens_ >= faults_.disconnect_after_tokens &&
      req_.stream) {
    ctx_.http->Abort(conn_);  // → ConnectionLost → engine Abort, Done
    return false;
  }
  return keep_going;
}

void GenerationStream::AppendTokenText(int count, FinishReason finish) {
  int reasoning = 0;
  if (req_.endpoint == Endpoint::kChat && completion_tokens_ < ctx_.reasoning_tokens) {
    reasoning = std::min(count, ctx_.reasoning_tokens - completion_tokens_);
    text_.Next(reasoning, &pending_reasoning_);
  }
  int rest = count - reasoning;
  if (rest <= 0) return;
  if (!req_.tool_call_name.empty()) {
    // Only a natural stop ends the call's JSON; max_tokens cuts it open.
    tool_call_.Next(rest, finish == FinishReason::kStop, &pending_tool_args_);
  } else {
    text_.Next(rest, &pending_text_);
  }
}

void GenerationStream::AppendToolCall(std::string* out, std::string_view args, bool first) const {
  *out += "\"tool_calls\":[{\"index\":0,";
  if (first) {
    *out += "\"id\":";
    AppendJsonString(out, "call_" + id_);
    *out += ",\"type\":\"function\",\"function\":{\"name\":";
    AppendJsonString(out, req_.tool_call_name);
    *out += ",\"arguments\":";
  } else {
    *out += "\"function\":{\"arguments\":";
  }
  AppendJsonString(out, args);
  *out += "}}]";
}

void GenerationStream::BeginChunk(std::string* out) const {
  *out += "data: {\"id\":\"";
  *out += id_;
  *out += req_.endpoint == Endpoint::kChat ? "\",\"object\":\"chat.completion.chunk\",\"created\":"
                                           : "\",\"object\":\"text_completion\",\"created\":";
  fmt::format_to(std::back_inserter(*out), "{},\"model\":", created_);
  AppendJsonString(out, ctx_.model_name);
}

void GenerationStream::AppendSimTime(std::string* out) {
  // The simulated time the chunk's tokens were produced (the end of the step that
  // produced them): the client measures in this clock when time is compressed.
  fmt::format_to(std::back_inserter(*out), ",\"servebench_sim_ns\":{}",
                 ctx_.engine->SimulatedNowNs());
  if (!sim_arrival_sent_) {
    sim_arrival_sent_ = true;
    // A decode worker's request arrived at the session's router (kv_transfer.h): that
    // is its arrival, in the clock the session's processes share.
    int64_t arrival = ctx_.engine->ArrivalNs(engine_id_);
    if (req_.kv_transfer && req_.kv_transfer->session_arrival_mono_ns > 0) {
      if (auto at = ctx_.engine->SimulatedNsOfWall(req_.kv_transfer->session_arrival_mono_ns))
        arrival = std::min(arrival, *at);
    }
    fmt::format_to(std::back_inserter(*out),
                   ",\"servebench_sim_arrival_ns\":{},\"servebench_sim_time_scale\":{}", arrival,
                   ctx_.engine->time_scale());
  }
}

void GenerationStream::EndChunk(std::string* out, bool with_usage, std::vector<size_t>* stamps) {
  if (with_usage) {
    fmt::format_to(
        std::back_inserter(*out),
        ",\"usage\":{{\"prompt_tokens\":{},\"total_tokens\":{},\"completion_tokens\":{}}}",
        req_.prompt_tokens, req_.prompt_tokens + completion_tokens_, completion_tokens_);
  }
  if (ctx_.sim_time_stamps) AppendSimTime(out);
  if (ctx_.send_time_field) {
    // The HTTP server writes the time into the placeholder as the bytes leave.
    *out += ",\"servebench_send_ns\":";
    stamps->push_back(out->size());
    *out += HttpServer::kSendStampPlaceholder;
  }
  *out += "}\n\n";
}

void GenerationStream::EmitChunk(std::string_view reasoning, std::string_view text,
                                 std::string_view tool_args, FinishReason finish) {
  std::string out;
  out.reserve(256 + text.size());
  std::vector<size_t> stamps;
  const char* fin = FinishName(finish);
  if (req_.endpoint == Endpoint::kChat && !role_sent_) {
    role_sent_ = true;
    BeginChunk(&out);
    out +=
        ",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
        "\"logprobs\":null,\"finish_reason\":null}]";
    EndChunk(&out, req_.continuous_usage, &stamps);
  }
  if (reasoning.empty() && text.empty() && tool_args.empty() && !fin) {
    Write(out, stamps);
    return;
  }
  BeginChunk(&out);
  if (req_.endpoint == Endpoint::kChat) {
    out += ",\"choices\":[{\"index\":0,\"delta\":{";
    const char* sep = "";
    if (!reasoning.empty()) {
      out += "\"reasoning_content\":";
      AppendJsonString(&out, reasoning);
      sep = ",";
    }
    if (!text.empty()) {
      out += sep;
      out += "\"content\":";
      AppendJsonString(&out, text);
      sep = ",";
    }
    if (!tool_args.empty()) {
      out += sep;
      AppendToolCall(&out, tool_args, !tool_call_named_);
      tool_call_named_ = true;
    }
    out += "},\"logprobs\":null,\"finish_reason\":";
  } else {
    out += ",\"choices\":[{\"index\":0,\"text\":";
    AppendJsonString(&out, text);
    out += ",\"logprobs\":null,\"finish_reason\":";
  }
  if (fin) {
    out += '"';
    out += fin;
    out += '"';
  } else {
    out += "null";
  }
  out += ",\"stop_reason\":";
  if (stop_reason_.empty()) {
    out += "null";
  } else {
    AppendJsonString(&out, stop_reason_);
  }
  out += "}]";
  EndChunk(&out, req_.continuous_usage, &stamps);
  // Malformed-event fault: one broken event after the chosen token count.
  if (!malformed_done_ && faults_.malformed_after_tokens >= 0 &&
      sent_tokens_ + pending_tokens_ >= faults_.malformed_after_tokens) {
    malformed_done_ = true;
    out += "data: {\"id\":\"" + id_ + "\",\"choices\":[{\"index\":0,\"text\":\"\n\n";
  }
  Write(out, stamps);
}

void GenerationStream::Write(std::string_view sse, const std::vector<size_t>& stamps) {
  if (sse.empty()) return;
  if (faults_.stall_ms > 0 && !stall_done_ &&
      sent_tokens_ + pending_tokens_ >= faults_.stall_after_tokens && stall_until_ns_ == 0) {
    stall_until_ns_ = MonotonicNowNs() + static_cast<int64_t>(faults_.stall_ms * 1e6);
    ConnId conn = conn_;
    HttpServer* http = ctx_.http;
    // The timer may outlive this object (client gone); it only touches the server
    // through the connection id, and this object through a flag check in the server.
    ctx_.loop->RunAt(stall_until_ns_, [this, conn, http] {
      if (!http->IsOpen(conn)) return;
      stall_done_ = true;
      http->WriteChunk(conn, held_, held_stamps_);
      held_.clear();
      held_stamps_.clear();
      if (end_after_held_) {
        http->EndStream(conn);
        Done();
      }
    });
  }
  if (stall_until_ns_ != 0 && !stall_done_) {
    for (size_t at : stamps) held_stamps_.push_back(held_.size() + at);
    held_.append(sse);
    return;
  }
  ctx_.http->WriteChunk(conn_, sse, stamps);
}

void GenerationStream::EmitFinal() {
  if (req_.stream) {
    std::string out;
    std::vector<size_t> stamps;
    if (req_.include_usage) {
      BeginChunk(&out);
      out += ",\"choices\":[]";
      EndChunk(&out, true, &stamps);
    }
    out += "data: [DONE]\n\n";
    Write(out, stamps);
    if (stall_until_ns_ != 0 && !stall_done_) {
      end_after_held_ = true;  // the stall timer ends the stream
      return;
    }
    ctx_.http->EndStream(conn_);
    Done();
    return;
  }
  std::string body;
  body.reserve(512 + full_text_.size());
  body += "{\"id\":\"";
  body += id_;
  body += req_.endpoint == Endpoint::kChat ? "\",\"object\":\"chat.completion\",\"created\":"
                                           : "\",\"object\":\"text_completion\",\"created\":";
  fmt::format_to(std::back_inserter(body), "{},\"model\":", created_);
  AppendJsonString(&body, ctx_.model_name);
  if (req_.endpoint == Endpoint::kChat) {
    body += ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":";
    AppendJsonString(&body, full_text_);
    if (!pending_reasoning_.empty()) {
      body += ",\"reasoning_content\":";
      AppendJsonString(&body, pending_reasoning_);
    }
    if (pending_tool_args_.empty()) {
      body += ",\"tool_calls\":[]";
    } else {
      body += ',';
      AppendToolCall(&body, pending_tool_args_, /*first=*/true);
    }
    body += "},\"logprobs\":null,\"finish_reason\":\"";
  } else {
    body += ",\"choices\":[{\"index\":0,\"text\":";
    AppendJsonString(&body, full_text_);
    body += ",\"logprobs\":null,\"finish_reason\":\"";
  }
  body += FinishName(finish_);
  body += "\",\"stop_reason\":";
  if (stop_reason_.empty()) {
    body += "null";
  } else {
    AppendJsonString(&body, stop_reason_);
  }
  fmt::format_to(
      std::back_inserter(body),
      "}}],\"usage\":{{\"prompt_tokens\":{},\"total_tokens\":{},\"completion_tokens\":{}}}",
      req_.prompt_tokens, req_.prompt_tokens + completion_tokens_, completion_tokens_);
  if (ctx_.sim_time_stamps) AppendSimTime(&body);
  body += '}';
  ctx_.http->Respond(conn_, 200, "application/json", body);
  Done();
}

}  // namespace servebench::sim
