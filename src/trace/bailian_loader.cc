// Bailian JSONL (alibaba-edu/qwen-bailian-usagetraces-anon; AIPerf `bailian_trace`),
// reference agentic.md §2.3. One request per line: `chat_id`, `parent_chat_id` (-1 for
// the first request of a session), `timestamp` (seconds from the trace start),
// `input_length`, `output_length`, `type` (text, search, image, file), `turn` (default
// 1) and `hash_ids` (16-token blocks). The requests whose parent chain leads to one root
// chat_id form one multi-turn session (one tree), replayed in `turn` order (file order
// among equal turns). As in Mooncake, every row is a whole prompt: its input_length and
// hash_ids already hold the history it retains.
//
// A parent_chat_id that no row of the file carries (the session began before the
// file's window) makes that id the session's root. The trace records no completion
// times, so in closed-loop lanes a session's next turn follows the previous one's end
// with no delay; on a fixed schedule each row goes at its timestamp.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "common/jsonl.h"
#include "trace/json_fields.h"
#include "trace/loaders_internal.h"

namespace servebench::trace::internal {
namespace {

struct Row {
  int64_t chat_id = 0, parent = -1, turn = 1;
  size_t line = 0;
  TraceTurn request;
};

StatusOr<Row> ReadRow(const JsonFields& fields, std::string where, size_t line) {
  SB_RETURN_IF_ERROR(fields.OnlyKeys({"chat_id", "parent_chat_id", "timestamp", "input_length",
                                      "output_length", "type", "turn", "hash_ids"}));
  Row row;
  row.line = line;
  row.request.where = std::move(where);
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> chat, fields.Int("chat_id", true, 0));
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> parent, fields.Int("parent_chat_id", false, -1));
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> turn, fields.Int("turn", false, 1));
  SB_ASSIGN_OR_RETURN(std::optional<double> seconds, fields.Number("timestamp", true, 0));
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> input, fields.Int("input_length", true, 1));
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> output, fields.Int("output_length", true, 1));
  SB_ASSIGN_OR_RETURN(std::optional<std::string> type, fields.String("type", false));
  if (type && *type != "text" && *type != "search" && *type != "image" && *type != "file")
    return fields.Error("type", "must be text, search, image or file");
  SB_ASSIGN_OR_RETURN(std::optional<std::vector<uint64_t>> ids, fields.IdList("hash_ids", false));
  row.chat_id = *chat;
  row.parent = parent.value_or(-1);
  if (row.parent == row.chat_id)
    return fields.Error("parent_chat_id", "must not be the row's own chat_id");
  row.turn = turn.value_or(1);
  row.request.timestamp_ms = static_cast<int64_t>(*seconds * 1000.0 + 0.5);
  row.request.input_tokens = *input;
  row.request.output_tokens = *output;
  if (ids) row.request.hash_ids = std::move(*ids);
  return row;
}

}  // namespace

Status LoadBailianFile(const std::string& path, uint64_t scope, int64_t block_tokens,
                       Trace* trace) {
  BlockSizes sizes;
  std::vector<Row> rows;
  std::unordered_map<int64_t, size_t> row_of_chat;
  Status status = ForEachJsonlObject(
      path,
      "bailian_trace rows hold {chat_id, parent_chat_id, timestamp, input_length, "
      "output_length, hash_ids}",
      [&](size_t line, const boost::json::object& object) -> Status {
        JsonFields fields(object, "");
        SB_ASSIGN_OR_RETURN(Row row, ReadRow(fields, fmt::format("{}:{}", path, line), line));
        SB_RETURN_IF_ERROR(sizes.Check(row.request, block_tokens));
        if (auto [it, fresh] = row_of_chat.emplace(row.chat_id, rows.size()); !fresh) {
          return Status::InvalidArgument(
              fmt::format("chat_id = {}: also the chat_id of line {}; each request has its own",
                          row.chat_id, rows[it->second].line));
        }
        rows.push_back(std::move(row));
        return Status::Ok();
      });
  SB_RETURN_IF_ERROR(status);
  if (rows.empty()) {
    return Status::InvalidArgument(
        fmt::format("{}: no rows (a bailian_trace file holds one JSON object per line)", path));
  }
  // Each row's session: the root of its parent chain (memoised; a chain longer than
  // the file is a cycle).
  std::vector<int64_t> root(rows.size(), -2);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<size_t> chain;
    size_t at = i;
    int64_t found = -2;
    while (true) {
      if (root[at] != -2) {
        found = root[at];
        break;
      }
      chain.push_back(at);
      if (chain.size() > rows.size()) {
        return Status::InvalidArgument(
            fmt::format("{}:{}: chat_id = {}: its parent_chat_id chain loops", path, rows[i].line,
                        rows[i].chat_id));
      }
      const int64_t parent = rows[at].parent;
      auto it = parent < 0 ? row_of_chat.end() : row_of_chat.find(parent);
      if (it == row_of_chat.end()) {
        found = parent < 0 ? rows[at].chat_id : parent;
        break;
      }
      at = it->second;
    }
    for (size_t c : chain) root[c] = found;
  }
  // Sessions in the order their first row appears; turns by `turn`, then file order.
  std::map<int64_t, size_t> tree_of_root;
  std::vector<std::vector<size_t>> members;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto [it, fresh] = tree_of_root.emplace(root[i], members.size());
    if (fresh) members.emplace_back();
    members[it->second].push_back(i);
  }
  for (auto& m : members) {
    std::stable_sort(m.begin(), m.end(),
                     [&](size_t a, size_t b) { return rows[a].turn < rows[b].turn; });
    TraceTree tree;
    tree.id = fmt::format("chat-{}", root[m.front()]);
    tree.scope = scope;
    TraceConversation& conversation = tree.conversations.emplace_back();
    conversation.id = tree.id;
    for (size_t i : m) conversation.turns.push_back(std::move(rows[i].request));
    trace->trees.push_back(std::move(tree));
  }
  return Status::Ok();
}

}  // namespace servebench::trace::internal
