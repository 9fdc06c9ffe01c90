#include "metrics/request_record.h"

namespace servebench::metrics {

std::string_view KSourceName(KSource source) {
  switch (source) {
    case KSource::kContinuousUsage:
      return "continuous_usage";
    case KSource::kTokenizer:
      return "tokenizer";
    case KSource::kOne:
      return "one";
  }
  return "one";
}

std::string_view NSourceName(NSource source) {
  switch (source) {
    case NSource::kUsage:
      return "usage";
    case NSource::kContinuousUsage:
      return "continuous_usage";
    case NSource::kTokenizer:
      return "tokenizer";
    case NSource::kEventCount:
      return "event_count";
  }
  return "event_count";
}

std::string_view PromptSourceName(PromptSource source) {
  return source == PromptSource::kUsage ? "usage" : "client";
}

std::string_view FailureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::kNone:
      return "none";
    case FailureKind::kConnect:
      return "connect";
    case FailureKind::kWrite:
      return "write";
    case FailureKind::kRead:
      return "read";
    case FailureKind::kTimeout:
      return "timeout";
    case FailureKind::kHttpStatus:
      return "http_status";
    case FailureKind::kMalformed:
      return "malformed";
    case FailureKind::kStreamError:
      return "stream_error";
    case FailureKind::kNoTokens:
      return "no_tokens";
    case FailureKind::kCancelled:
      return "cancelled";
    case FailureKind::kCutAtEnd:
      return "cut_at_end";
  }
  return "none";
}

OutputTokens ResolveOutputTokens(const RequestRecord& record) {
  if (record.usage_completion_tokens >= 0) {
    return {record.usage_completion_tokens, NSource::kUsage};
  }
  int64_t sum_k = 0, token_events = 0;
  for (const StreamEvent& e : record.events) {
    sum_k += e.k;
    if (e.k > 0) ++token_events;
  }
  if (record.saw_continuous_usage && record.k_source == KSource::kContinuousUsage) {
    return {sum_k, NSource::kContinuousUsage};
  }
  if (record.k_source == KSource::kTokenizer) return {sum_k, NSource::kTokenizer};
  return {token_events, NSource::kEventCount};
}

PromptTokens ResolvePromptTokens(const RequestRecord& record) {
  if (record.usage_prompt_tokens >= 0) return {record.usage_prompt_tokens, PromptSource::kUsage};
  return {record.client_prompt_tokens, PromptSource::kClient};
}

}  // namespace servebench::metrics
