// RequestRecord: everything the client observed about one request (metrics.md §1).
// client/ fills one per request on the worker thread that ran it; metrics/ reads
// them after the run to compute the RunSummary. All times are CLOCK_MONOTONIC
// nanoseconds (common/clock.h); -1 means "did not happen". Plain value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servebench::metrics {

// Where the per-event token count `k` came from (metrics.md §2).
enum class KSource {
  kContinuousUsage,  // difference of cumulative usage.completion_tokens between chunks
  kTokenizer,        // a tokenizer count of the event's text
  kOne,              // k = 1 for every token-carrying event
};

// Where a request's output token count `n` came from (metrics.md §3).
enum class NSource { kUsage, kContinuousUsage, kTokenizer, kEventCount };

// Where a request's prompt token count came from.
enum class PromptSource { kUsage, kClient };

std::string_view KSourceName(KSource source);
std::string_view NSourceName(NSource source);
std::string_view PromptSourceName(PromptSource source);

// The output channels an event's text can belong to (metrics.md §2; docs/metrics.md
// "Channels"), as bits of StreamEvent::channels: reasoning (`reasoning_content` /
// `reasoning`), content (`content`, or `text` on /v1/completions) and tool-call text
// (a function's `name` or `arguments` fragment). metrics/channels.h reads them.
inline constexpr uint8_t kChannelReasoning = 1;
inline constexpr uint8_t kChannelContent = 2;
inline constexpr uint8_t kChannelToolCall = 4;

// One SSE event of the response stream.
struct StreamEvent {
  int64_t t_ns = 0;  // monotonic time of the read that delivered the event's end
  int32_t k = 0;     // output tokens carried (0: role-only, usage-only, empty delta)
  // kChannel* bits of the non-empty text the event carried; 0 when k is 0. Sits in
  // the padding after k: the event stays 24 bytes.
  uint8_t channels = 0;
  // The simulated time the server stamped on the event (servebench sim with a
  // compressed clock, "servebench_sim_ns"); -1 = none (simulated_time.h).
  int64_t sim_t_ns = -1;
};

// Per-request speculative-decoding stats, when the server sends them in the final
// usage chunk (vLLM `metrics.speculative_decoding`, metrics.md §7).
struct RequestSpecStats {
  int64_t num_spec_steps = 0;
  int64_t num_draft_tokens = 0;
  int64_t num_accepted_draft_tokens = 0;
  double mean_acceptance_length = 0;  // as the server reported it
};

// Why a request failed; exactly one meaning per kind (style.md, "Errors").
enum class FailureKind {
  kNone,
  kConnect,      // could not connect (refused, TLS handshake failed, DNS)
  kWrite,        // the request could not be written
  kRead,         // the connection reset or closed before the stream ended
  kTimeout,      // the per-request deadline passed
  kHttpStatus,   // a non-200 status
  kMalformed,    // bytes that are not HTTP, SSE or JSON as expected
  kStreamError,  // the server sent an error object in the stream
  kNoTokens,     // the stream ended normally without a token-carrying event
  kCancelled,    // the run was interrupted while this request was in flight
  // A duration-bounded run's grace period ended while the request was in flight (or,
  // open loop with a cap, still waiting for a slot): the client cancelled it.
  kCutAtEnd,
};
std::string_view FailureKindName(FailureKind kind);

struct RequestRecord {
  int64_t index = 0;    // position in the measured prompt list (warm-ups: own list)
  bool warmup = false;  // warm-up requests are excluded from every metric
  int64_t t_scheduled_ns = -1;
  int64_t t_slot_free_ns = -1;  // open loop with a concurrency cap only; -1 = t_scheduled
  int64_t t_sent_ns = -1;
  int64_t t_first_token_ns = -1;
  int64_t t_last_token_ns = -1;
  int64_t t_done_ns = -1;
  std::vector<StreamEvent> events;  // every SSE data event, in order
  KSource k_source = KSource::kOne;
  int64_t usage_prompt_tokens = -1;  // last usage object seen; -1 = none
  int64_t usage_completion_tokens = -1;
  bool saw_continuous_usage = false;  // every token-carrying event carried usage
  int64_t client_prompt_tokens = 0;   // the client's own count of what it sent
  int64_t max_tokens = 0;             // requested output length
  std::optional<RequestSpecStats> spec;
  // Tool calls the stream returned, by whether each call's accumulated `arguments`
  // text parses as JSON (client/openai_stream.h decides at the end of the stream).
  int32_t tool_calls_valid = 0;
  int32_t tool_calls_invalid = 0;
  // Times the request was re-sent on a new connection because the pooled one it
  // was first sent on had been closed by the server (client/load_worker.h).
  int32_t reconnects = 0;
  int http_status = 0;
  std::string finish_reason;
  FailureKind failure = FailureKind::kNone;
  std::string error;           // empty on success; a human line otherwise
  std::string generated_text;  // kept only when the run asks for it
  // Ground truth for measuring the client itself: the server's own CLOCK_MONOTONIC
  // send time of the first token-carrying event, when the server reports one
  // (`servebench sim --send-time-field` adds "servebench_send_ns"). -1 = none.
  int64_t server_first_token_send_ns = -1;
  // A simulated server with a compressed clock stamps the request's simulated
  // arrival and its time scale on the first chunk (simulated_time.h); -1 = none.
  int64_t sim_arrival_ns = -1;
  double sim_time_scale = -1;

  bool ok() const { return failure == FailureKind::kNone && error.empty(); }
};

// n and its source by the precedence of metrics.md §3 (usage, continuous usage,
// tokenizer, event count). The client has no tokenizer, so `kTokenizer` appears
// only when a caller set k_source to it.
struct OutputTokens {
  int64_t n = 0;
  NSource source = NSource::kEventCount;
};
OutputTokens ResolveOutputTokens(const RequestRecord& record);

// Prompt tokens: the server's usage.prompt_tokens, else the client's count.
struct PromptTokens {
  int64_t n = 0;
  PromptSource source = PromptSource::kClient;
};
PromptTokens ResolvePromptTokens(const RequestRecord& record);

}  // namespace servebench::metrics
