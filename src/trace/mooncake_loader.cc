// Mooncake JSONL (kvcache-ai/Mooncake FAST'25; AIPerf `mooncake_trace`), reference
// agentic.md §2.2. One request per line: `timestamp` (ms from the trace start) or
// `delay` (ms after the previous row of the same session completed), `input_length`,
// `output_length`, `hash_ids`; optional `session_id` groups rows into a multi-turn
// session (one tree), replayed in file order. Every row is a whole prompt: its
// input_length and hash_ids already include the history.
//
// Only the input_length (+ hash_ids) input mode is supported; AIPerf's text_input,
// messages and payload modes are rejected by name rather than ignored.
#include <fmt/format.h>

#include <unordered_map>

#include "common/jsonl.h"
#include "trace/json_fields.h"
#include "trace/loaders_internal.h"
#include "trace/prompt_synthesis.h"

namespace servebench::trace::internal {
namespace {

StatusOr<TraceTurn> ReadRow(const JsonFields& row, std::string where) {
  for (std::string_view mode : {"text_input", "messages", "payload", "tools", "message_mode"}) {
    if (row.Has(mode)) {
      return Status::InvalidArgument(
          fmt::format("field '{}' (an AIPerf input mode) is not supported: servebench replays "
                      "input_length + hash_ids rows",
                      mode));
    }
  }
  SB_RETURN_IF_ERROR(row.OnlyKeys(
      {"timestamp", "delay", "session_id", "input_length", "output_length", "hash_ids"}));
  TraceTurn turn;
  turn.where = std::move(where);
  SB_ASSIGN_OR_RETURN(std::optional<double> timestamp, row.Number("timestamp", false, 0));
  SB_ASSIGN_OR_RETURN(std::optional<double> delay, row.Number("delay", false, 0));
  if (timestamp && delay) {
    return Status::InvalidArgument(
        fmt::format("timestamp and delay are both set: a row has one (timestamp: ms from the trace "
                    "start; delay: ms after the previous turn of its session)"));
  }
  if (timestamp) turn.timestamp_ms = static_cast<int64_t>(*timestamp);
  if (delay) turn.delay_ms = static_cast<int64_t>(*delay);
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> input, row.Int("input_length", true, 1));
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> output, row.Int("output_length", true, 1));
  turn.input_tokens = *input;
  turn.output_tokens = *output;
  SB_ASSIGN_OR_RETURN(std::optional<std::vector<uint64_t>> ids, row.IdList("hash_ids", false));
  if (ids) turn.hash_ids = std::move(*ids);
  return turn;
}

}  // namespace

Status LoadMooncakeFile(const std::string& path, uint64_t scope, int64_t block_tokens,
                        Trace* trace) {
  BlockSizes sizes;
  std::unordered_map<std::string, size_t> tree_of_session;
  const size_t first_tree = trace->trees.size();
  Status status = ForEachJsonlObject(
      path, "mooncake_trace rows hold {timestamp, input_length, output_length, hash_ids}",
      [&](size_t line, const boost::json::object& object) -> Status {
        JsonFields row(object, "");
        SB_ASSIGN_OR_RETURN(TraceTurn turn, ReadRow(row, fmt::format("{}:{}", path, line)));
        SB_RETURN_IF_ERROR(sizes.Check(turn, block_tokens));
        SB_ASSIGN_OR_RETURN(std::optional<std::string> session, row.String("session_id", false));
        if (!session) {
          if (turn.delay_ms > 0) {
            return Status::InvalidArgument(fmt::format(
                "delay = {} on a row with no session_id: a delay follows an earlier turn of "
                "the same session (give a session_id or a timestamp)",
                turn.delay_ms));
          }
          TraceTree tree;
          tree.id = fmt::format("line-{}", line);
          tree.scope = scope;
          tree.conversations.emplace_back().id = tree.id;
          tree.conversations[0].turns.push_back(std::move(turn));
          trace->trees.push_back(std::move(tree));
          return Status::Ok();
        }
        auto [it, fresh] = tree_of_session.emplace(*session, trace->trees.size());
        if (fresh) {
          TraceTree tree;
          tree.id = *session;
          tree.scope = scope;
          tree.conversations.emplace_back().id = *session;
          trace->trees.push_back(std::move(tree));
        }
        trace->trees[it->second].conversations[0].turns.push_back(std::move(turn));
        return Status::Ok();
      });
  SB_RETURN_IF_ERROR(status);
  if (trace->trees.size() == first_tree) {
    return Status::InvalidArgument(
        fmt::format("{}: no rows (a mooncake_trace file holds one "
                    "JSON object per line)",
                    path));
  }
  return Status::Ok();
}

}  // namespace servebench::trace::internal
