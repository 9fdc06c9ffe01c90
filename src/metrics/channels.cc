#include "metrics/channels.h"

namespace servebench::metrics {

std::string_view ChannelName(Channel channel) {
  switch (channel) {
    case Channel::kReasoning:
      return "reasoning";
    case Channel::kContent:
      return "content";
    case Channel::kToolCall:
      return "tool_call";
  }
  return "content";
}

RequestChannels ChannelsOf(const RequestRecord& record) {
  // Bit i of StreamEvent::channels is channel i (request_record.h's constants).
  static_assert(kChannelReasoning == 1 << static_cast<int>(Channel::kReasoning));
  static_assert(kChannelContent == 1 << static_cast<int>(Channel::kContent));
  static_assert(kChannelToolCall == 1 << static_cast<int>(Channel::kToolCall));
  RequestChannels out;
  for (const StreamEvent& e : record.events) {
    if (e.k <= 0) continue;
    uint8_t bits = e.channels == 0 ? kChannelContent : e.channels;
    bool counted = false;
    for (Channel c : kAllChannels) {
      if ((bits & (1u << static_cast<int>(c))) == 0) continue;
      ChannelFacts& f = out[c];
      if (f.t_first_ns < 0) f.t_first_ns = e.t_ns;
      if (!counted) {
        f.tokens += e.k;
        ++f.events;
        counted = true;
      }
    }
    if (out.t_first_output_ns < 0 && (bits & (kChannelContent | kChannelToolCall)) != 0) {
      out.t_first_output_ns = e.t_ns;
    }
  }
  return out;
}

}  // namespace servebench::metrics
