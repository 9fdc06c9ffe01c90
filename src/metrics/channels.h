// Output channels of one request: when its reasoning, content and tool-call text
// first arrived and how many tokens each carried, the time to first visible output
// (TTFO) and the validity of the tool calls it returned (docs/metrics.md "Channels").
// The one definition of these facts: ComputeRunSummary, the per-request JSONL and
// the tests read them from here. Derived from RequestRecord::events, so a record
// rewritten into simulated time (simulated_time.h) gives simulated-time channels.
// Pure functions; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "metrics/request_record.h"

namespace servebench::metrics {

enum class Channel { kReasoning = 0, kContent = 1, kToolCall = 2 };
inline constexpr size_t kChannelCount = 3;
inline constexpr std::array<Channel, kChannelCount> kAllChannels = {
    Channel::kReasoning, Channel::kContent, Channel::kToolCall};

// "reasoning", "content", "tool_call": the key every output uses.
std::string_view ChannelName(Channel channel);

// One channel of one request.
struct ChannelFacts {
  int64_t t_first_ns = -1;  // the first event carrying its text; -1 = none
  int64_t tokens = 0;       // Σk of the events attributed to it (see RequestChannels)
  int64_t events = 0;       // token-carrying events attributed to it
  bool present() const { return t_first_ns >= 0; }
};

struct RequestChannels {
  std::array<ChannelFacts, kChannelCount> channels;
  // The first event with content or tool-call text: the first output a user (or a
  // tool runner) sees. Reasoning never counts; -1 when the request ended without one
  // (e.g. max_tokens was spent thinking).
  int64_t t_first_output_ns = -1;
  const ChannelFacts& operator[](Channel c) const { return channels[static_cast<size_t>(c)]; }
  ChannelFacts& operator[](Channel c) { return channels[static_cast<size_t>(c)]; }
};

// The channels of `record`'s token-carrying events. An event that carries text of
// several channels (an engine's delta at the end of thinking may hold both
// reasoning and content) counts towards each channel's first time, but its k,
// which the stream gives for the event as a whole, goes to the first of them in
// the order reasoning, content, tool call. An event with k > 0 and no channel bits
// (a record not made by the stream decoder) counts as content.
RequestChannels ChannelsOf(const RequestRecord& record);

}  // namespace servebench::metrics
