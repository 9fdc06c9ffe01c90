#include "client/openai_stream.h"

#include <boost/json.hpp>
#include <string>

namespace servebench::client {
namespace {

namespace json = boost::json;
using metrics::FailureKind;

// Appends the text a choice carries (content, reasoning, tool-call name/arguments;
// `text` on /v1/completions) to `out`; returns whether any was non-empty.
bool ChoiceText(const json::object& choice, std::string* out) {
  bool any = false;
  auto take = [&](const json::value* v) {
    if (v == nullptr || !v->is_string()) return;
    const json::string& s = v->get_string();
    if (s.empty()) return;
    any = true;
    if (out) out->append(s.data(), s.size());
  };
  take(choice.if_contains("text"));
  if (const json::value* d = choice.if_contains("delta"); d && d->is_object()) {
    const json::object& delta = d->get_object();
    take(delta.if_contains("content"));
    take(delta.if_contains("reasoning_content"));
    take(delta.if_contains("reasoning"));
    if (const json::value* tc = delta.if_contains("tool_calls"); tc && tc->is_array()) {
      for (const json::value& call : tc->get_array()) {
        if (!call.is_object()) continue;
        const json::value* fn = call.get_object().if_contains("function");
        if (fn == nullptr || !fn->is_object()) continue;
        take(fn->get_object().if_contains("name"));
        take(fn->get_object().if_contains("arguments"));
      }
    }
  }
  return any;
}

int64_t IntOr(const json::object& o, std::string_view key, int64_t fallback) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return fallback;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return fallback;
}

void ReadSpecStats(const json::object& chunk, metrics::RequestRecord* r) {
  const json::value* m = chunk.if_contains("metrics");
  if (m == nullptr || !m->is_object()) return;
  const json::value* sd = m->get_object().if_contains("speculative_decoding");
  if (sd == nullptr || !sd->is_object()) return;
  const json::object& o = sd->get_object();
  metrics::RequestSpecStats s;
  s.num_spec_steps = IntOr(o, "num_spec_steps", 0);
  s.num_draft_tokens = IntOr(o, "num_draft_tokens", 0);
  s.num_accepted_draft_tokens = IntOr(o, "num_accepted_draft_tokens", 0);
  if (const json::value* al = o.if_contains("mean_acceptance_length"); al && al->is_number()) {
    s.mean_acceptance_length = al->to_number<double>();
  }
  r->spec = s;
}

}  // namespace

bool StreamDecoder::OnData(std::string_view data, int64_t t_ns) {
  ++events_;
  if (data == "[DONE]") {
    saw_done_ = true;
    finished_ = true;
    return true;
  }
  // Chunks are small: parse into a stack buffer so no event costs a heap allocation.
  unsigned char storage[8192];
  json::monotonic_resource resource(storage, sizeof(storage));
  json::error_code ec;
  json::value v = json::parse(data, ec, &resource);
  if (ec || !v.is_object()) {
    record_->failure = FailureKind::kMalformed;
    record_->error = "stream event is not a JSON object: " + std::string(data.substr(0, 200));
    return false;
  }
  const json::object& chunk = v.get_object();
  if (const json::value* err = chunk.if_contains("error"); err && !err->is_null()) {
    record_->failure = FailureKind::kStreamError;
    record_->error = "server error in stream: " + json::serialize(*err).substr(0, 300);
    return false;
  }
  if (const json::value* obj = chunk.if_contains("object");
      obj && obj->is_string() && obj->get_string() == "error") {
    record_->failure = FailureKind::kStreamError;
    record_->error = "server error in stream: " + std::string(data.substr(0, 300));
    return false;
  }
  bool carries = false;
  std::string* text = keep_text_ ? &record_->generated_text : nullptr;
  if (const json::value* ch = chunk.if_contains("choices"); ch && ch->is_array()) {
    for (const json::value& c : ch->get_array()) {
      if (!c.is_object()) continue;
      if (ChoiceText(c.get_object(), text)) carries = true;
      if (const json::value* fr = c.get_object().if_contains("finish_reason");
          fr && fr->is_string()) {
        record_->finish_reason = std::string(fr->get_string());
        finished_ = true;
      }
    }
  }
  int64_t k = carries ? 1 : 0;
  const json::value* u = chunk.if_contains("usage");
  bool has_usage = u != nullptr && u->is_object();
  if (has_usage) {
    const json::object& usage = u->get_object();
    int64_t cum = IntOr(usage, "completion_tokens", -1);
    record_->usage_prompt_tokens = IntOr(usage, "prompt_tokens", record_->usage_prompt_tokens);
    if (cum >= 0) {
      record_->usage_completion_tokens = cum;
      // Per-chunk (continuous) usage: k is the growth of the cumulative count.
      if (carries) k = std::max<int64_t>(cum - last_cum_completion_, 1);
      last_cum_completion_ = cum;
    }
  }
  if (carries) {
    if (!has_usage) all_token_events_had_usage_ = false;
    ++token_events_;
    if (record_->t_first_token_ns < 0) {
      record_->t_first_token_ns = t_ns;
      if (const json::value* st = chunk.if_contains("servebench_send_ns"); st && st->is_int64()) {
        record_->server_first_token_send_ns = st->get_int64();
      }
    }
    record_->t_last_token_ns = t_ns;
  }
  ReadSpecStats(chunk, record_);
  // A simulated server with a compressed clock stamps its simulated time on every
  // chunk and the request's arrival on the first (metrics/simulated_time.h).
  int64_t sim_t = -1;
  if (const json::value* st = chunk.if_contains("servebench_sim_ns"); st && st->is_int64()) {
    sim_t = st->get_int64();
    if (const json::value* a = chunk.if_contains("servebench_sim_arrival_ns"); a && a->is_int64())
      record_->sim_arrival_ns = a->get_int64();
    if (const json::value* sc = chunk.if_contains("servebench_sim_time_scale");
        sc && sc->is_number())
      record_->sim_time_scale = sc->to_number<double>();
  }
  record_->events.push_back({t_ns, static_cast<int32_t>(k), sim_t});
  return true;
}

void StreamDecoder::OnEnd() {
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
