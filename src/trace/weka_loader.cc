// Weka trajectories (kv-cache-tester; SemiAnalysis cc-traces-weka corpora; AIPerf
// `weka_trace`), reference agentic.md §2.1. One trajectory per JSON object: a JSONL
// file of them (the corpora's traces.jsonl) or a file holding one object. Strict:
// unknown fields are rejected.
//
// Requests `n`/`s` become the root conversation's turns; a `subagent` entry becomes a
// child conversation "<trace>::sa:<agent_id>" spawned when the preceding parent turn
// completes and joined by the following one (none following: a background child;
// none preceding: dropped and counted, as AIPerf does). Delays are end-to-start:
// max(0, t_k − (t_{k−1} + api_time_{k−1})) within a conversation; a child's first
// turn starts that long after the end of its spawning turn.
#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>

#include "common/atomic_file.h"
#include "common/jsonl.h"
#include "common/limits.h"
#include "trace/hash_mix.h"
#include "trace/json_fields.h"
#include "trace/loaders_internal.h"

namespace servebench::trace::internal {
namespace {

struct Timed {
  double t_s = 0;
  double api_time_s = 0;
};

int64_t Ms(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1000.0)); }

// One `n` / `s` request; `path` is its place in the row ("requests[3]").
StatusOr<TraceTurn> ReadRequest(const boost::json::object& object, const std::string& path,
                                Timed* timed) {
  JsonFields r(object, path);
  SB_RETURN_IF_ERROR(r.OnlyKeys({"t", "type", "model", "in", "out", "hash_ids", "input_types",
                                 "output_types", "stop", "api_time", "think_time", "ttft"}));
  TraceTurn turn;
  SB_ASSIGN_OR_RETURN(std::optional<double> t, r.Number("t", true, 0));
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> in, r.Int("in", true, 1));
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> out, r.Int("out", true, 1));
  SB_ASSIGN_OR_RETURN(std::optional<std::vector<uint64_t>> ids, r.IdList("hash_ids", true));
  SB_ASSIGN_OR_RETURN(std::optional<double> api, r.Number("api_time", false, 0));
  SB_ASSIGN_OR_RETURN(std::optional<double> think, r.Number("think_time", false, 0));
  SB_ASSIGN_OR_RETURN(std::optional<double> ttft, r.Number("ttft", false, 0));
  (void)think;
  (void)ttft;
  timed->t_s = *t;
  timed->api_time_s = api.value_or(0);
  turn.timestamp_ms = Ms(*t);
  turn.input_tokens = *in;
  turn.output_tokens = *out;
  turn.hash_ids = std::move(*ids);
  return turn;
}

// Reads the requests of a root (`subagent` allowed) or of a subagent (not).
struct Reader {
  std::string where;  // "file:line"
  int64_t block_tokens = 0;
  BlockSizes sizes;

  StatusOr<TraceTurn> Turn(const boost::json::object& object, const std::string& path,
                           const Timed* previous, Timed* timed) {
    SB_ASSIGN_OR_RETURN(TraceTurn turn, ReadRequest(object, path, timed));
    turn.where = fmt::format("{}: {}", where, path);
    SB_RETURN_IF_ERROR(
        sizes.Check(turn, block_tokens, JsonFields(object, path).FieldPath("hash_ids")));
    if (previous != nullptr) {
      turn.delay_ms = std::max<int64_t>(0, Ms(timed->t_s - (previous->t_s + previous->api_time_s)));
    }
    return turn;
  }
};

StatusOr<const boost::json::object*> ObjectAt(const boost::json::array& list, size_t i,
                                              const std::string& path) {
  if (!list[i].is_object()) {
    return Status::InvalidArgument(fmt::format("{}[{}]: must be an object", path, i));
  }
  return &list[i].as_object();
}

StatusOr<TraceTree> ReadTrajectory(const boost::json::object& object, const std::string& where,
                                   uint64_t scope, int64_t* block_tokens, int64_t* dropped) {
  JsonFields top(object, "");
  SB_RETURN_IF_ERROR(top.OnlyKeys({"id", "models", "block_size", "hash_id_scope", "tool_tokens",
                                   "system_tokens", "requests", "totals"}));
  SB_ASSIGN_OR_RETURN(std::optional<std::string> id, top.String("id", true));
  SB_ASSIGN_OR_RETURN(std::optional<int64_t> block, top.Int("block_size", true, 1));
  SB_ASSIGN_OR_RETURN(std::optional<std::string> hash_scope, top.String("hash_id_scope", false));
  if (hash_scope && *hash_scope != "local") {
    return top.Error("hash_id_scope",
                     "must be \"local\" (ids per trace; global ids are not "
                     "supported)");
  }
  SB_RETURN_IF_ERROR(top.Int("tool_tokens", false, 0).status());
  SB_RETURN_IF_ERROR(top.Int("system_tokens", false, 0).status());
  if (*block_tokens != 0 && *block != *block_tokens) {
    return top.Error("block_size", fmt::format("differs from the {} of the trace's earlier "
                                               "trajectories: one replay has one block size",
                                               *block_tokens));
  }
  *block_tokens = *block;
  SB_ASSIGN_OR_RETURN(const boost::json::array* requests, top.Array("requests", true));
  if (requests->empty()) return top.Error("requests", "must hold at least one request");

  TraceTree tree;
  tree.id = *id;
  tree.scope = scope;
  tree.conversations.emplace_back().id = *id;
  Reader reader{where, *block, {}};
  Timed previous_root, timed;
  // Children whose join turn is the next root turn, once it exists.
  std::vector<size_t> awaiting_join;
  for (size_t i = 0; i < requests->size(); ++i) {
    const std::string path = fmt::format("requests[{}]", i);
    SB_ASSIGN_OR_RETURN(const boost::json::object* item, ObjectAt(*requests, i, "requests"));
    JsonFields entry(*item, path);
    SB_ASSIGN_OR_RETURN(std::optional<std::string> type, entry.String("type", true));
    std::vector<TraceTurn>& root_turns = tree.conversations[0].turns;
    if (*type == "n" || *type == "s") {
      const bool first = root_turns.empty();
      SB_ASSIGN_OR_RETURN(TraceTurn turn,
                          reader.Turn(*item, path, first ? nullptr : &previous_root, &timed));
      previous_root = timed;
      for (size_t child : awaiting_join) {
        tree.conversations[child].join_before_turn = static_cast<int>(root_turns.size());
      }
      awaiting_join.clear();
      root_turns.push_back(std::move(turn));
      continue;
    }
    if (*type != "subagent") return entry.Error("type", "must be n, s or subagent");
    SB_RETURN_IF_ERROR(entry.OnlyKeys({"t", "type", "agent_id", "subagent_type", "status",
                                       "duration_ms", "total_tokens", "tool_use_count", "requests",
                                       "models", "tool_tokens", "system_tokens"}));
    SB_ASSIGN_OR_RETURN(std::optional<std::string> agent, entry.String("agent_id", true));
    SB_RETURN_IF_ERROR(entry.Number("t", false, 0).status());
    SB_ASSIGN_OR_RETURN(const boost::json::array* inner, entry.Array("requests", true));
    if (inner->empty()) return entry.Error("requests", "must hold at least one request");
    TraceConversation child;
    child.id = fmt::format("{}::sa:{}", *id, *agent);
    child.parent = 0;
    Timed previous_child;
    for (size_t k = 0; k < inner->size(); ++k) {
      const std::string inner_path = fmt::format("{}.requests[{}]", path, k);
      SB_ASSIGN_OR_RETURN(const boost::json::object* request,
                          ObjectAt(*inner, k, path + ".requests"));
      JsonFields inner_entry(*request, inner_path);
      SB_ASSIGN_OR_RETURN(std::optional<std::string> inner_type, inner_entry.String("type", true));
      if (*inner_type != "n" && *inner_type != "s") {
        return inner_entry.Error("type",
                                 "must be n or s (a subagent inside a subagent is not "
                                 "supported)");
      }
      SB_ASSIGN_OR_RETURN(TraceTurn turn, reader.Turn(*request, inner_path,
                                                      k == 0 ? nullptr : &previous_child, &timed));
      if (k == 0 && !root_turns.empty()) {
        child.spawn_offset_ms =
            std::max<int64_t>(0, Ms(timed.t_s - (previous_root.t_s + previous_root.api_time_s)));
      }
      previous_child = timed;
      child.turns.push_back(std::move(turn));
    }
    if (root_turns.empty()) {
      ++*dropped;  // nothing to spawn it
      continue;
    }
    child.spawn_after_turn = static_cast<int>(root_turns.size()) - 1;
    awaiting_join.push_back(tree.conversations.size());
    tree.conversations.push_back(std::move(child));
  }
  if (tree.conversations[0].turns.empty()) {
    return top.Error("requests", "holds no n or s request of the root agent");
  }
  return tree;
}

}  // namespace

Status LoadWekaFile(const std::string& path, uint64_t first_scope, Trace* trace) {
  uint64_t scope = first_scope;
  auto add = [&](const boost::json::object& object, const std::string& where) -> Status {
    SB_ASSIGN_OR_RETURN(TraceTree tree,
                        ReadTrajectory(object, where, MixInto(scope++, 0x77656b61ull),
                                       &trace->block_size_tokens, &trace->dropped_subagents));
    trace->trees.push_back(std::move(tree));
    return Status::Ok();
  };
  SB_ASSIGN_OR_RETURN(std::string text, ReadFile(path, limits::kMaxDatasetBytes));
  // One object for the whole file (pretty-printed), or JSON Lines.
  boost::system::error_code ec;
  boost::json::value whole = boost::json::parse(text, ec);
  const size_t before = trace->trees.size();
  const size_t end = text.find_last_not_of(" \t\r\n");
  const bool one_line = end == std::string::npos || text.rfind('\n', end) == std::string::npos;
  if (!ec && whole.is_object() && !one_line) {
    SB_RETURN_IF_ERROR(add(whole.get_object(), path).WithContext(path));
  } else {
    SB_RETURN_IF_ERROR(ForEachJsonlObject(path, "weka_trace rows hold {id, block_size, requests}",
                                          [&](size_t line, const boost::json::object& object) {
                                            return add(object, fmt::format("{}:{}", path, line));
                                          }));
  }
  if (trace->trees.size() == before) {
    return Status::InvalidArgument(fmt::format("{}: no trajectories", path));
  }
  return Status::Ok();
}

}  // namespace servebench::trace::internal
