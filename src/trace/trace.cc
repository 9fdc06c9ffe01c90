#include "trace/trace.h"

namespace servebench::trace {

std::string_view TraceFormatName(TraceFormat format) {
  switch (format) {
    case TraceFormat::kMooncake:
      return "mooncake_trace";
    case TraceFormat::kWeka:
      return "weka_trace";
    case TraceFormat::kBailian:
      return "bailian_trace";
    case TraceFormat::kDagJsonl:
      return "dag_jsonl";
    case TraceFormat::kMultiTurn:
      return "multi_turn";
  }
  return "?";
}

int64_t Trace::num_turns() const {
  int64_t n = 0;
  for (const TraceTree& tree : trees) {
    for (const TraceConversation& conversation : tree.conversations) {
      n += static_cast<int64_t>(conversation.turns.size());
    }
  }
  return n;
}

}  // namespace servebench::trace
