// AIPerf `dag_jsonl` (reference agentic.md §2.4; AIPerf dag_jsonl_models.py): one
// conversation per line, `session_id` and `turns`. A turn holds its authored
// `messages` (appended to the conversation's history), `max_tokens`, optional `tools`
// and `extra` (more body fields), `delay` (ms before it is sent) and its children:
// `spawns` (fresh-context children; the parent's next turn, or `join_at`, waits for
// them) and `forks` (children that inherit the parent's history; the parent ends
// unless `background`). Conversations named by nobody are the roots of the trees.
//
// The history is built here, as sent: `deltas_without_responses` (the default)
// accumulates every earlier turn's messages, `message_array_with_responses` sends
// each turn's own array. Assistant turns are pre-canned: the messages the file
// authors, never the server's replies (AIPerf threads live replies into the
// default mode's history; docs/agentic.md says what differs). Orchestrator
// conversations, `rounds` and `pre_session_spawns` are rejected by name.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <functional>
#include <unordered_map>

#include "common/jsonl.h"
#include "trace/json_fields.h"
#include "trace/loaders_internal.h"

namespace servebench::trace::internal {
namespace {

namespace json = boost::json;

struct Child {
  std::string id;
  size_t turn = 0;
  int join_at = -1;  // spawns: the turn that waits (-1: none follows, background)
  bool fork = false;
};

struct DagConversation {
  std::string id;
  size_t line = 0;
  bool accumulate = true;  // deltas_without_responses
  std::vector<TraceTurn> turns;
  std::vector<json::array> messages;  // per turn: its authored messages
  std::vector<Child> children;
};

// Keys a turn's `extra` may not set: servebench writes them itself.
bool IsOwnBodyKey(std::string_view key) {
  for (std::string_view k : {"model", "messages", "prompt", "stream", "stream_options",
                             "max_tokens", "max_completion_tokens"}) {
    if (key == k) return true;
  }
  return false;
}

Status CheckMessages(const JsonFields& turn, const json::array& messages) {
  if (messages.empty()) return turn.Error("messages", "must hold at least one message");
  for (size_t i = 0; i < messages.size(); ++i) {
    const json::object* m = messages[i].if_object();
    const json::value* role = m ? m->if_contains("role") : nullptr;
    if (role == nullptr || !role->is_string() || role->as_string().empty()) {
      return Status::InvalidArgument(
          fmt::format("{}[{}]: must be an object with a string 'role' (OpenAI chat message)",
                      turn.FieldPath("messages"), i));
    }
  }
  return Status::Ok();
}

// One entry of `spawns` (a session id, or {children, join_at}) or of `forks` (a
// session id, or {child, background}).
Status ReadChildren(const JsonFields& turn, std::string_view key, size_t turn_index,
                    size_t num_turns, std::vector<Child>* out, bool* ends_parent) {
  SB_ASSIGN_OR_RETURN(const json::array* list, turn.Array(key, false));
  if (list == nullptr) return Status::Ok();
  const bool fork = key == "forks";
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string path = fmt::format("{}[{}]", turn.FieldPath(key), i);
    const json::value& item = (*list)[i];
    auto bad = [&](std::string_view rule) {
      return Status::InvalidArgument(fmt::format("{} = {}: {}", path, json::serialize(item), rule));
    };
    Child child;
    child.turn = turn_index;
    child.fork = fork;
    const bool next = turn_index + 1 < num_turns;
    if (item.is_string() && !item.as_string().empty()) {
      child.id = std::string(item.as_string());
      child.join_at = fork || !next ? -1 : static_cast<int>(turn_index) + 1;
      if (fork) *ends_parent = true;
      out->push_back(std::move(child));
      continue;
    }
    if (!item.is_object()) return bad("must be a session id or an object");
    JsonFields entry(item.as_object(), path);
    if (fork) {
      SB_RETURN_IF_ERROR(entry.OnlyKeys({"child", "background"}));
      SB_ASSIGN_OR_RETURN(std::optional<std::string> id, entry.String("child", true));
      const json::value* background = item.as_object().if_contains("background");
      if (background != nullptr && !background->is_bool() && !background->is_null())
        return entry.Error("background", "must be true or false");
      if (background == nullptr || !background->is_bool() || !background->as_bool())
        *ends_parent = true;
      child.id = *id;
      out->push_back(std::move(child));
      continue;
    }
    SB_RETURN_IF_ERROR(entry.OnlyKeys({"children", "join_at"}));
    SB_ASSIGN_OR_RETURN(const json::array* children, entry.Array("children", true));
    if (children->empty()) return entry.Error("children", "must name at least one session");
    SB_ASSIGN_OR_RETURN(std::optional<int64_t> join_at, entry.Int("join_at", false, 0));
    if (join_at && (*join_at <= static_cast<int64_t>(turn_index) ||
                    *join_at >= static_cast<int64_t>(num_turns))) {
      return entry.Error("join_at",
                         fmt::format("must be a later turn of this conversation ({}..{})",
                                     turn_index + 1, static_cast<int64_t>(num_turns) - 1));
    }
    for (size_t c = 0; c < children->size(); ++c) {
      const json::value& id = (*children)[c];
      if (!id.is_string() || id.as_string().empty()) {
        return Status::InvalidArgument(
            fmt::format("{}.children[{}]: must be a session id (a non-empty string)", path, c));
      }
      Child spawn = child;
      spawn.id = std::string(id.as_string());
      spawn.join_at =
          join_at ? static_cast<int>(*join_at) : (next ? static_cast<int>(turn_index) + 1 : -1);
      out->push_back(std::move(spawn));
    }
  }
  return Status::Ok();
}

StatusOr<DagConversation> ReadConversation(const json::object& object, const std::string& where,
                                           size_t line) {
  JsonFields top(object, "");
  for (std::string_view key : {"orchestrator", "rounds", "spawns", "think_time_ms",
                               "think_time_sigma", "think_time_min_ms", "think_time_max_ms"}) {
    if (top.Has(key) &&
        !(key == "orchestrator" && object.at(key).is_bool() && !object.at(key).as_bool())) {
      return top.Error(key,
                       "orchestrator conversations (orchestrator, rounds, conversation-level "
                       "spawns, think_time_*) are not supported: author the spawns on turns");
    }
  }
  if (const json::value* pre = object.if_contains("pre_session_spawns");
      pre != nullptr && !(pre->is_array() && pre->as_array().empty()) && !pre->is_null()) {
    return top.Error("pre_session_spawns",
                     "children started before turn 0 are not supported: spawn them from turn 0");
  }
  SB_RETURN_IF_ERROR(top.OnlyKeys({"session_id", "turns", "context_mode", "pre_session_spawns",
                                   "orchestrator", "rounds", "spawns", "think_time_ms",
                                   "think_time_sigma", "think_time_min_ms", "think_time_max_ms"}));
  DagConversation c;
  c.line = line;
  SB_ASSIGN_OR_RETURN(std::optional<std::string> id, top.String("session_id", true));
  // Required, so always set; value_or keeps GCC 12's -Wmaybe-uninitialized quiet here.
  c.id = std::move(id).value_or(std::string());
  SB_ASSIGN_OR_RETURN(std::optional<std::string> mode, top.String("context_mode", false));
  if (mode && *mode != "deltas_without_responses" && *mode != "message_array_with_responses") {
    return top.Error("context_mode",
                     "must be deltas_without_responses (the default: history accumulates) or "
                     "message_array_with_responses (each turn its own message array)");
  }
  c.accumulate = !mode || *mode == "deltas_without_responses";
  SB_ASSIGN_OR_RETURN(const json::array* turns, top.Array("turns", true));
  if (turns->empty()) return top.Error("turns", "must hold at least one turn");
  bool ended = false;  // a terminating fork came before
  for (size_t k = 0; k < turns->size(); ++k) {
    const std::string path = fmt::format("turns[{}]", k);
    if (!(*turns)[k].is_object()) {
      return Status::InvalidArgument(fmt::format("{}: must be an object", path));
    }
    if (ended) {
      return Status::InvalidArgument(fmt::format(
          "{}: follows a fork that ends the conversation (a fork without \"background\": true "
          "ends its parent; make it {{\"child\": ..., \"background\": true}} or move it last)",
          path));
    }
    const json::object& object_k = (*turns)[k].as_object();
    JsonFields turn(object_k, path);
    if (turn.Has("model")) {
      return turn.Error("model", "a per-turn model is not supported (servebench sends --model)");
    }
    SB_RETURN_IF_ERROR(turn.OnlyKeys(
        {"messages", "model", "max_tokens", "tools", "extra", "delay", "spawns", "forks"}));
    SB_ASSIGN_OR_RETURN(const json::array* messages, turn.Array("messages", true));
    SB_RETURN_IF_ERROR(CheckMessages(turn, *messages));
    if (object_k.contains("max_tokens") && object_k.at("max_tokens").is_bool())
      return turn.Error("max_tokens", "must be an integer >= 1, not a boolean");
    SB_ASSIGN_OR_RETURN(std::optional<int64_t> max_tokens, turn.Int("max_tokens", false, 1));
    if (!max_tokens) {
      return Status::InvalidArgument(fmt::format(
          "{} is missing (servebench needs each turn's output length to send as max_tokens)",
          turn.FieldPath("max_tokens")));
    }
    SB_ASSIGN_OR_RETURN(std::optional<double> delay, turn.Number("delay", false, 0));
    TraceTurn t;
    t.where = fmt::format("{}: {}", where, path);
    t.output_tokens = *max_tokens;
    t.delay_ms = static_cast<int64_t>(delay.value_or(0) + 0.5);
    SB_ASSIGN_OR_RETURN(const json::array* tools, turn.Array("tools", false));
    if (tools != nullptr) t.body_fields_json = ",\"tools\":" + json::serialize(*tools);
    if (const json::value* extra = object_k.if_contains("extra"); extra && !extra->is_null()) {
      if (!extra->is_object()) return turn.Error("extra", "must be an object of body fields");
      for (const auto& kv : extra->as_object()) {
        if (IsOwnBodyKey(kv.key()) || kv.key() == "tools") {
          return Status::InvalidArgument(fmt::format(
              "{}.{}: servebench sets this body field itself (max_tokens and tools are turn "
              "fields)",
              turn.FieldPath("extra"), std::string_view(kv.key())));
        }
        t.body_fields_json +=
            "," + json::serialize(json::string(kv.key())) + ":" + json::serialize(kv.value());
      }
    }
    SB_RETURN_IF_ERROR(ReadChildren(turn, "spawns", k, turns->size(), &c.children, &ended));
    SB_RETURN_IF_ERROR(ReadChildren(turn, "forks", k, turns->size(), &c.children, &ended));
    c.turns.push_back(std::move(t));
    c.messages.push_back(*messages);
  }
  return c;
}

}  // namespace

Status LoadDagFile(const std::string& path, uint64_t scope, Trace* trace) {
  std::vector<DagConversation> conversations;
  std::unordered_map<std::string, size_t> index_of;
  SB_RETURN_IF_ERROR(ForEachJsonlObject(
      path, "dag_jsonl rows hold {session_id, turns}",
      [&](size_t line, const json::object& object) -> Status {
        SB_ASSIGN_OR_RETURN(DagConversation c,
                            ReadConversation(object, fmt::format("{}:{}", path, line), line));
        if (auto [it, fresh] = index_of.emplace(c.id, conversations.size()); !fresh) {
          return Status::InvalidArgument(
              fmt::format("session_id = \"{}\": also the session_id of line {}; each "
                          "conversation has its own",
                          c.id, conversations[it->second].line));
        }
        conversations.push_back(std::move(c));
        return Status::Ok();
      }));
  if (conversations.empty()) {
    return Status::InvalidArgument(
        fmt::format("{}: no rows (a dag_jsonl file holds one conversation per line)", path));
  }
  // Who names whom: every child must exist and have one parent.
  std::vector<int> parent_of(conversations.size(), -1);
  for (size_t p = 0; p < conversations.size(); ++p) {
    for (const Child& child : conversations[p].children) {
      auto it = index_of.find(child.id);
      const std::string where = fmt::format("{}:{}: turns[{}].{}", path, conversations[p].line,
                                            child.turn, child.fork ? "forks" : "spawns");
      if (it == index_of.end()) {
        return Status::InvalidArgument(fmt::format(
            "{}: \"{}\": no conversation of the file has this session_id", where, child.id));
      }
      if (it->second == p || parent_of[it->second] >= 0) {
        return Status::InvalidArgument(fmt::format(
            "{}: \"{}\": {}", where, child.id,
            it->second == p ? "a conversation cannot be its own child"
                            : fmt::format("already a child of \"{}\" (one parent per conversation)",
                                          conversations[parent_of[it->second]].id)));
      }
      parent_of[it->second] = static_cast<int>(p);
    }
  }
  std::vector<bool> placed(conversations.size(), false);
  for (size_t r = 0; r < conversations.size(); ++r) {
    if (parent_of[r] >= 0) continue;
    TraceTree tree;
    tree.id = conversations[r].id;
    tree.scope = scope;
    // Depth first from the root; `base` is the history a conversation starts from (a
    // fork's parent's at the fork turn, else none).
    // `live_base` is the same history with live replies (TraceTurn::live_messages).
    std::function<void(size_t, int, const Child*, const json::array&,
                       const std::vector<LivePiece>&)>
        add = [&](size_t c, int parent, const Child* link, const json::array& base,
                  const std::vector<LivePiece>& live_base) {
          DagConversation& dc = conversations[c];
          const int me = static_cast<int>(tree.conversations.size());
          TraceConversation& out = tree.conversations.emplace_back();
          out.id = dc.id;
          out.parent = parent;
          if (link != nullptr) {
            out.spawn_after_turn = static_cast<int>(link->turn);
            out.join_before_turn = link->join_at;
            out.spawn_offset_ms = dc.turns[0].delay_ms;
          }
          std::vector<json::array> history;
          // Live: after turn k, the history holds turn k's reply (a fork inherits it).
          std::vector<std::vector<LivePiece>> live_history;
          json::array sent = base;
          std::vector<LivePiece> live = live_base;
          for (size_t k = 0; k < dc.turns.size(); ++k) {
            if (!dc.accumulate) sent = base;
            for (const json::value& m : dc.messages[k]) {
              sent.push_back(m);
              live.push_back({json::serialize(m), -1, -1});
            }
            dc.turns[k].messages_json = json::serialize(sent);
            history.push_back(sent);
            if (dc.accumulate) {
              dc.turns[k].live_messages = live;
              live.push_back({"", me, static_cast<int>(k)});
              live_history.push_back(live);
            } else {
              // message_array_with_responses: each turn's own array, replies authored.
              std::vector<LivePiece> own;
              for (const json::value& m : sent) own.push_back({json::serialize(m), -1, -1});
              live_history.push_back(std::move(own));
            }
          }
          tree.conversations[me].turns = std::move(dc.turns);
          placed[c] = true;
          for (const Child& child : dc.children) {
            const size_t ci = index_of.at(child.id);
            add(ci, me, &child, child.fork ? history[child.turn] : json::array(),
                child.fork ? live_history[child.turn] : std::vector<LivePiece>());
          }
        };
    add(r, -1, nullptr, json::array(), {});
    trace->trees.push_back(std::move(tree));
  }
  for (size_t c = 0; c < conversations.size(); ++c) {
    if (!placed[c]) {
      return Status::InvalidArgument(fmt::format(
          "{}:{}: session_id = \"{}\": its parent chain loops (no root conversation leads to it)",
          path, conversations[c].line, conversations[c].id));
    }
  }
  return Status::Ok();
}

}  // namespace servebench::trace::internal
