#include "run/agentic_requests.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "common/jsonl.h"

namespace servebench::run {
namespace json = boost::json;
namespace {

constexpr double kNsPerMs = 1e6;

StatusOr<int64_t> IntField(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return Status::InvalidArgument(fmt::format("field '{}' is missing", key));
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return Status::InvalidArgument(fmt::format("field '{}' must be an integer", key));
}

StatusOr<bool> BoolField(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return Status::InvalidArgument(fmt::format("field '{}' is missing", key));
  if (!v->is_bool())
    return Status::InvalidArgument(fmt::format("field '{}' must be a boolean", key));
  return v->as_bool();
}

// A string field that may be absent ("").
StatusOr<std::string> OptionalString(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::string();
  if (!v->is_string())
    return Status::InvalidArgument(fmt::format("field '{}' must be a string", key));
  return std::string(v->as_string());
}

StatusOr<AgenticRequest> ParseRequest(const json::object& o, const ClockAnchor& anchor) {
  AgenticRequest r;
  SB_ASSIGN_OR_RETURN(r.warmup, BoolField(o, "warmup"));
  SB_ASSIGN_OR_RETURN(r.ok, BoolField(o, "ok"));
  SB_ASSIGN_OR_RETURN(int64_t sent, IntField(o, "t_sent_ns"));
  SB_ASSIGN_OR_RETURN(int64_t first, IntField(o, "t_first_token_ns"));
  SB_ASSIGN_OR_RETURN(int64_t last, IntField(o, "t_last_token_ns"));
  SB_ASSIGN_OR_RETURN(int64_t done, IntField(o, "t_done_ns"));
  SB_ASSIGN_OR_RETURN(r.output_tokens, IntField(o, "output_tokens"));
  SB_ASSIGN_OR_RETURN(r.input_tokens, IntField(o, "prompt_tokens"));
  SB_ASSIGN_OR_RETURN(r.failure, OptionalString(o, "failure"));
  SB_ASSIGN_OR_RETURN(r.error, OptionalString(o, "error"));
  SB_ASSIGN_OR_RETURN(r.tree, OptionalString(o, "tree"));
  SB_ASSIGN_OR_RETURN(r.conversation, OptionalString(o, "conversation"));
  if (o.contains("turn_index")) {
    SB_ASSIGN_OR_RETURN(r.turn_index, IntField(o, "turn_index"));
  }
  if (const json::value* h = o.if_contains("http_status"); h != nullptr && h->is_int64())
    r.http_status = static_cast<int>(h->as_int64());
  if (r.failure == "none") r.failure.clear();
  if (sent < 0) return Status::InvalidArgument("field 't_sent_ns' is negative: never sent");
  r.start_ns = anchor.ToUnixNs(sent);
  r.end_ns = anchor.ToUnixNs(done >= sent ? done : sent);
  if (!r.ok) return r;
  if (first < sent || last < first) {
    return Status::InvalidArgument(
        fmt::format("a successful request needs t_sent_ns <= t_first_token_ns <= "
                    "t_last_token_ns (got {}, {}, {})",
                    sent, first, last));
  }
  r.ttft_ms = static_cast<double>(first - sent) / kNsPerMs;
  r.e2el_ms = static_cast<double>(last - sent) / kNsPerMs;
  if (r.output_tokens > 1)
    r.itl_ms = (*r.e2el_ms - *r.ttft_ms) / static_cast<double>(r.output_tokens - 1);
  return r;
}

json::object Metric(double value, const char* unit) {
  return json::object{{"value", value}, {"unit", unit}};
}

json::object Metric(int64_t value, const char* unit) {
  return json::object{{"value", value}, {"unit", unit}};
}

}  // namespace

StatusOr<std::vector<AgenticRequest>> ReadAgenticRequests(const std::string& path,
                                                          const ClockAnchor& anchor) {
  std::vector<AgenticRequest> out;
  SB_RETURN_IF_ERROR(
      ForEachJsonlObject(path, "servebench per-request lines hold {index, warmup, ok, t_*_ns, ...}",
                         [&](size_t line, const json::object& o) -> Status {
                           SB_ASSIGN_OR_RETURN(AgenticRequest r, ParseRequest(o, anchor));
                           r.line = line;
                           out.push_back(std::move(r));
                           return Status::Ok();
                         }));
  return out;
}

json::object AiperfRecordJson(const AgenticRequest& r) {
  json::object metadata;
  metadata["conversation_id"] =
      r.conversation.empty() ? json::value(nullptr) : json::value(r.conversation);
  metadata["turn_index"] = r.turn_index >= 0 ? json::value(r.turn_index) : json::value(nullptr);
  metadata["benchmark_phase"] = r.warmup ? "warmup" : "profiling";
  metadata["request_start_ns"] = r.start_ns;
  metadata["request_end_ns"] = r.end_ns;
  metadata["x_correlation_id"] = nullptr;  // servebench sends no X-Correlation-ID header
  metadata["was_cancelled"] = r.failure == "cut_at_end" || r.failure == "cancelled";
  json::object metrics;
  if (r.ok) {
    metrics["input_sequence_length"] = Metric(r.input_tokens, "tokens");
    metrics["output_sequence_length"] = Metric(r.output_tokens, "tokens");
    if (r.ttft_ms) metrics["time_to_first_token"] = Metric(*r.ttft_ms, "ms");
    if (r.e2el_ms) metrics["request_latency"] = Metric(*r.e2el_ms, "ms");
    if (r.itl_ms) metrics["inter_token_latency"] = Metric(*r.itl_ms, "ms");
  }
  json::object line;
  line["metadata"] = std::move(metadata);
  line["metrics"] = std::move(metrics);
  if (r.ok) {
    line["error"] = nullptr;
  } else {
    line["error"] = json::object{
        {"code", r.http_status > 0 ? json::value(r.http_status) : json::value(nullptr)},
        {"type", r.failure.empty() ? std::string("unknown") : r.failure},
        {"message", r.error}};
  }
  return line;
}

}  // namespace servebench::run
