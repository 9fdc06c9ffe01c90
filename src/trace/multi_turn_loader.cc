// vLLM `benchmarks/multi_turn` conversations (reference agentic.md §2.5; vLLM
// bench_dataset.py `conversations_list_to_dict`): one JSON array of
// {"id": str, "messages": [{"role", "content"}, ...]} — ShareGPT as
// convert_sharegpt_to_openai.py writes it. Each conversation is one tree of one
// conversation; each user message is a turn that sends every message before it (the
// recorded assistant replies included: pre-canned) and the user message itself. The
// recorded reply after it sets max_tokens, counted by the server's tokenizer when the
// replay is prepared (vLLM's default: --limit-min/max-tokens from the dataset's
// assistant length). vLLM's generator config (`"filetype": "generate_conversations"`)
// is rejected by name: it is a recipe for a dataset, not one.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <unordered_map>

#include "common/atomic_file.h"
#include "common/limits.h"
#include "trace/json_fields.h"
#include "trace/loaders_internal.h"

namespace servebench::trace::internal {
namespace {

namespace json = boost::json;

// 1-based line of each element of the top-level JSON array in `text` (which parsed
// as one): a scan that skips strings, so a bad conversation's message names its line.
std::vector<size_t> ElementLines(std::string_view text) {
  std::vector<size_t> lines;
  size_t line = 1;
  int depth = 0;
  bool in_string = false, escaped = false, expect_element = false;
  for (char ch : text) {
    if (ch == '\n') ++line;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (ch == '\\') {
        escaped = true;
      } else if (ch == '"') {
        in_string = false;
      }
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n') continue;
    if (depth == 1 && expect_element && ch != ']') {
      lines.push_back(line);
      expect_element = false;
    }
    if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      ++depth;
      if (depth == 1) expect_element = true;
    } else if (ch == ']' || ch == '}') {
      --depth;
    } else if (ch == ',' && depth == 1) {
      expect_element = true;
    }
  }
  return lines;
}

StatusOr<TraceTree> ReadConversation(const json::object& object, const std::string& where,
                                     uint64_t scope) {
  JsonFields top(object, "");
  SB_RETURN_IF_ERROR(top.OnlyKeys({"id", "messages"}));
  SB_ASSIGN_OR_RETURN(std::optional<std::string> id, top.String("id", true));
  SB_ASSIGN_OR_RETURN(const json::array* messages, top.Array("messages", true));
  if (messages->empty()) return top.Error("messages", "must hold at least one message");
  TraceTree tree;
  tree.id = *id;
  tree.scope = scope;
  TraceConversation& conversation = tree.conversations.emplace_back();
  conversation.id = *id;
  json::array sent;
  std::vector<LivePiece> live;  // the same history with live replies (TraceTurn::live_messages)
  for (size_t i = 0; i < messages->size(); ++i) {
    const std::string path = fmt::format("messages[{}]", i);
    if (!(*messages)[i].is_object()) {
      return Status::InvalidArgument(fmt::format("{}: must be an object {{role, content}}", path));
    }
    JsonFields m((*messages)[i].as_object(), path);
    SB_RETURN_IF_ERROR(m.OnlyKeys({"role", "content"}));
    SB_ASSIGN_OR_RETURN(std::optional<std::string> role, m.String("role", true));
    const json::value* content = (*messages)[i].as_object().if_contains("content");
    if (content == nullptr || !content->is_string()) {
      return m.Error("content", "must be a string");
    }
    // vLLM pairs messages: user at even positions, the assistant's reply after each.
    const bool user_turn = i % 2 == 0;
    if (*role != (user_turn ? "user" : "assistant")) {
      return m.Error("role", fmt::format("must be \"{}\": messages alternate user, assistant, "
                                         "... from a user message (vLLM multi_turn)",
                                         user_turn ? "user" : "assistant"));
    }
    sent.push_back((*messages)[i]);
    if (!user_turn) {
      conversation.turns.back().answer_text = std::string(content->as_string());
      // Live: the server's reply to that turn stands where the recorded one was.
      live.push_back({"", 0, static_cast<int>(conversation.turns.size()) - 1});
      continue;
    }
    live.push_back({json::serialize((*messages)[i]), -1, -1});
    TraceTurn turn;
    turn.where = fmt::format("{}: {}", where, path);
    turn.messages_json = json::serialize(sent);
    turn.live_messages = live;
    conversation.turns.push_back(std::move(turn));
  }
  if (conversation.turns.back().answer_text.empty()) {
    return Status::InvalidArgument(
        fmt::format("messages[{}]: the last user message has no assistant reply after it (its "
                    "token count is the turn's max_tokens)",
                    messages->size() - 1));
  }
  return tree;
}

}  // namespace

Status LoadMultiTurnFile(const std::string& path, uint64_t scope, Trace* trace) {
  SB_ASSIGN_OR_RETURN(std::string text, ReadFile(path, limits::kMaxDatasetBytes));
  boost::system::error_code ec;
  json::value whole = json::parse(text, ec);
  if (ec) {
    return Status::InvalidArgument(
        fmt::format("{}: not JSON ({}): a multi_turn file is one "
                    "JSON list of {{id, messages}}",
                    path, ec.message()));
  }
  if (whole.is_object() && whole.as_object().contains("filetype")) {
    return Status::InvalidArgument(fmt::format(
        "{}: a vLLM generator config (\"filetype\") is not supported: give the conversations "
        "file it generates (a JSON list of {{id, messages}})",
        path));
  }
  if (!whole.is_array() || whole.as_array().empty()) {
    return Status::InvalidArgument(
        fmt::format("{}: must be a non-empty JSON list of {{id, messages}}", path));
  }
  const std::vector<size_t> lines = ElementLines(text);
  std::unordered_map<std::string, size_t> line_of_id;
  const json::array& list = whole.as_array();
  for (size_t i = 0; i < list.size(); ++i) {
    const size_t line = i < lines.size() ? lines[i] : 1;
    const std::string where = fmt::format("{}:{}", path, line);
    if (!list[i].is_object()) {
      return Status::InvalidArgument(
          fmt::format("{}: [{}] must be an object {{id, messages}}", where, i));
    }
    StatusOr<TraceTree> tree = ReadConversation(list[i].as_object(), where, scope);
    if (!tree.ok()) return tree.status().WithContext(where);
    if (auto [it, fresh] = line_of_id.emplace(tree->id, line); !fresh) {
      return Status::InvalidArgument(fmt::format(
          "{}: id = \"{}\": also the id of the conversation on line {}; each has its own", where,
          tree->id, it->second));
    }
    trace->trees.push_back(std::move(*tree));
  }
  return Status::Ok();
}

}  // namespace servebench::trace::internal
