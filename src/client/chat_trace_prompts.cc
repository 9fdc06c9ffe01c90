#include "client/chat_trace_prompts.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "trace/chat_prompt.h"
#include "trace/hash_mix.h"

namespace servebench::client {
namespace {

namespace json = boost::json;

// Short common English words: one token each in the BPE vocabularies servebench meets
// (and in the sim's tokenizer, which cuts letters at 6). Calibration keeps only the
// ones the server's tokenizer counts as one.
constexpr const char* kCandidateWords[] = {
    "the",   "of",    "and",   "to",    "in",    "is",    "that",  "for",    "it",    "as",
    "was",   "with",  "be",    "by",    "on",    "not",   "he",    "this",   "are",   "or",
    "his",   "from",  "at",    "which", "but",   "have",  "an",    "had",    "they",  "you",
    "were",  "their", "one",   "all",   "we",    "can",   "her",   "has",    "there", "been",
    "if",    "more",  "when",  "will",  "would", "who",   "so",    "no",     "she",   "other",
    "its",   "may",   "these", "about", "them",  "than",  "some",  "time",   "into",  "only",
    "do",    "could", "new",   "such",  "first", "then",  "two",   "any",    "like",  "very",
    "what",  "over",  "also",  "after", "most",  "made",  "our",   "should", "must",  "well",
    "where", "each",  "just",  "those", "how",   "being", "many",  "now",    "even",  "both",
    "make",  "here",  "work",  "still", "way",   "under", "great", "long",   "same",  "own",
    "good",  "while", "last",  "might", "us",    "day",   "life",  "world",  "part",  "year",
    "back",  "down",  "high",  "much",  "again", "small", "found", "place",  "home",  "water",
    "light", "house", "line",  "hand",  "name",  "point", "right", "state"};

constexpr size_t kMinWords = 16;
constexpr int kMaxCorrections = 4;

std::string UserMessages(std::string_view content) {
  json::array messages;
  messages.push_back(json::object{{"role", "user"}, {"content", content}});
  return json::serialize(messages);
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += w;
  return text;
}

// The message array with `marker` before the content of its first user message.
std::string MarkFirstUserMessage(const std::string& messages_json, const std::string& marker) {
  json::value messages = json::parse(messages_json);
  for (json::value& m : messages.as_array()) {
    json::object& o = m.as_object();
    if (o.at("role") != "user") continue;
    json::value* content = o.if_contains("content");
    if (content != nullptr && content->is_string()) {
      *content = marker + std::string(content->as_string());
    } else {
      // A parts list: the marker is a text part of its own, first.
      json::array parts;
      parts.push_back(json::object{{"type", "text"}, {"text", marker}});
      if (content != nullptr && content->is_array()) {
        for (json::value& part : content->as_array()) parts.push_back(part);
      }
      o["content"] = std::move(parts);
    }
    break;
  }
  return json::serialize(messages);
}

// The same marker in the live history (trace::LivePiece): its first user message.
void MarkFirstLiveUserMessage(const std::string& marker, std::vector<trace::LivePiece>* pieces) {
  for (trace::LivePiece& piece : *pieces) {
    if (piece.is_reply()) continue;
    const json::value m = json::parse(piece.message_json);
    const json::value* role = m.as_object().if_contains("role");
    if (role == nullptr || !role->is_string() || role->as_string() != "user") continue;
    const std::string marked = MarkFirstUserMessage("[" + piece.message_json + "]", marker);
    piece.message_json = marked.substr(1, marked.size() - 2);
    return;
  }
}

// Engine-block hash ids of a token sequence: one per full block of `block` tokens,
// chained, so two prompts share their first k ids iff they share their first k·block
// tokens (the sim's and vLLM's rule).
std::vector<uint64_t> BlockIds(const std::vector<int64_t>& tokens, int64_t block) {
  std::vector<uint64_t> ids;
  uint64_t key = 0x7465787462ull;
  for (size_t start = 0; start + static_cast<size_t>(block) <= tokens.size();
       start += static_cast<size_t>(block)) {
    for (size_t i = start; i < start + static_cast<size_t>(block); ++i) {
      key = trace::MixInto(key, static_cast<uint64_t>(tokens[i]));
    }
    ids.push_back(key >> 1);  // ids are < 2^63 (prompt_synthesis.h)
  }
  return ids;
}

Status MakeTextPrompts(const BenchSettings& s, const ChatTokenizer& tokenize, uint64_t run_id,
                       TraceWorkload* w) {
  w->trace.block_size_tokens = s.engine_block_tokens;
  // A reply's tokens: the assistant message's count minus an empty one's (the template
  // around the message cancels).
  const std::optional<ChatTokenization> empty_reply =
      tokenize(R"([{"role":"assistant","content":""}])");
  for (size_t i = 0; i < w->refs.size(); ++i) {
    const TraceWorkload::Ref& r = w->refs[i];
    trace::TraceTurn& turn = w->trace.trees[r.tree].conversations[r.conversation].turns[r.turn];
    std::string messages = turn.messages_json;
    if (s.cache_bust == "first_turn_prefix") {
      const std::string marker = trace::CacheBustMarker(run_id, r.tree);
      messages = MarkFirstUserMessage(messages, marker);
      MarkFirstLiveUserMessage(marker, &turn.live_messages);
    }
    std::optional<ChatTokenization> t = tokenize(messages);
    if (!t || t->tokens.empty()) {
      return Status::Unavailable(fmt::format(
          "{}: the server's /tokenize {} these messages; a {} replay needs their token ids "
          "(its input lengths and expected prefix hits)",
          turn.where, t ? "lists no token ids for" : "did not count",
          trace::TraceFormatName(w->trace.format)));
    }
    turn.input_tokens = t->count;
    turn.hash_ids = BlockIds(t->tokens, s.engine_block_tokens);
    if (!turn.answer_text.empty()) {
      json::array reply;
      reply.push_back(json::object{{"role", "assistant"}, {"content", turn.answer_text}});
      std::optional<ChatTokenization> a = tokenize(json::serialize(reply));
      if (!a || !empty_reply) {
        return Status::Unavailable(fmt::format(
            "{}: the server's /tokenize did not count the recorded reply (its length is "
            "max_tokens)",
            turn.where));
      }
      turn.output_tokens = std::max<int64_t>(1, a->count - empty_reply->count);
    }
    Prompt& p = w->prompts.measured[i];
    p.messages_json = std::move(messages);
    p.body_fields_json = turn.body_fields_json;
    p.prompt_tokens = turn.input_tokens;
    p.prompt_tokens_exact = true;
    p.max_tokens = turn.output_tokens;
  }
  return Status::Ok();
}

Status MakeSynthesizedPrompts(const BenchSettings& s, const ChatTokenizer& tokenize,
                              uint64_t run_id, TraceWorkload* w) {
  SB_ASSIGN_OR_RETURN(ChatCalibration cal, CalibrateChat(tokenize));
  const bool bust = s.cache_bust == "first_turn_prefix";
  std::vector<std::string> markers(w->trace.trees.size());
  std::vector<int64_t> marker_tokens(w->trace.trees.size(), 0);
  if (bust) {
    const std::optional<ChatTokenization> plain = tokenize(UserMessages(cal.words[0]));
    for (size_t t = 0; t < w->trace.trees.size(); ++t) {
      markers[t] = trace::CacheBustMarker(run_id, t);
      const std::optional<ChatTokenization> marked =
          tokenize(UserMessages(markers[t] + cal.words[0]));
      if (!plain || !marked) {
        return Status::Unavailable("the server's /tokenize did not count the cache-bust marker");
      }
      marker_tokens[t] = marked->count - plain->count;
      // The marker makes the tree an id space of its own to the engine, and so to the
      // expected-hit model.
      w->trace.trees[t].scope = trace::MixInto(w->trace.trees[t].scope, 0x63627573ull + t);
    }
  }
  trace::ChatPromptLayout layout;
  layout.seed = s.seed;
  layout.words = cal.words;
  layout.tail_tokens = cal.tail_tokens;
  int64_t corrected = 0;
  for (size_t i = 0; i < w->refs.size(); ++i) {
    const TraceWorkload::Ref& r = w->refs[i];
    const trace::TraceTree& tree = w->trace.trees[r.tree];
    const trace::TraceTurn& turn = w->turn(i);
    layout.head_tokens = cal.head_tokens + marker_tokens[r.tree];
    int64_t adjust = 0, count = -1;
    std::string content;
    for (int attempt = 0; attempt <= kMaxCorrections && count != turn.input_tokens; ++attempt) {
      adjust += count < 0 ? 0 : turn.input_tokens - count;
      StatusOr<std::string> text =
          trace::ChatContent(layout, tree.scope, turn.hash_ids, turn.input_tokens,
                             w->trace.block_size_tokens, /*fresh_key=*/i, markers[r.tree], adjust);
      if (!text.ok()) return text.status().WithContext(turn.where);
      content = std::move(*text);
      std::optional<ChatTokenization> t = tokenize(UserMessages(content));
      if (!t) {
        return Status::Unavailable(
            fmt::format("{}: the server's /tokenize did not count the prompt", turn.where));
      }
      count = t->count;
    }
    if (count != turn.input_tokens) {
      return Status::Internal(fmt::format(
          "{}: the chat prompt counts {} tokens through the server's tokenizer, not "
          "input_length {}, after {} corrections (its tokenizer merges servebench's words)",
          turn.where, count, turn.input_tokens, kMaxCorrections));
    }
    if (adjust != 0) ++corrected;
    Prompt& p = w->prompts.measured[i];
    p.text = std::move(content);
    p.prompt_tokens = turn.input_tokens;
    p.prompt_tokens_exact = true;
  }
  w->prompts.note += fmt::format(
      "; chat messages of exact length through the server's /tokenize ({} one-token words, "
      "template {} + {} tokens{}, {} turns corrected)",
      cal.words.size(), cal.head_tokens, cal.tail_tokens,
      cal.head_measured ? "" : ", head not measured: no token ids", corrected);
  return Status::Ok();
}

}  // namespace

StatusOr<ChatCalibration> CalibrateChat(const ChatTokenizer& tokenize) {
  const std::optional<ChatTokenization> empty = tokenize(UserMessages(""));
  if (!empty) {
    return Status::Unavailable("the server's /tokenize did not count an empty user message");
  }
  std::vector<std::string> all;
  for (const char* w : kCandidateWords) all.push_back(std::string(" ") + w);
  ChatCalibration cal;
  // One call when every candidate is one token (the usual case), else one per word.
  const std::optional<ChatTokenization> together = tokenize(UserMessages(Joined(all)));
  if (together && together->count - empty->count == static_cast<int64_t>(all.size())) {
    cal.words = std::move(all);
  } else {
    for (std::string& w : all) {
      const std::optional<ChatTokenization> one = tokenize(UserMessages(w));
      if (one && one->count - empty->count == 1) cal.words.push_back(std::move(w));
    }
    const std::optional<ChatTokenization> kept = tokenize(UserMessages(Joined(cal.words)));
    if (!kept || kept->count - empty->count != static_cast<int64_t>(cal.words.size())) {
      cal.words.clear();  // the one-token words merge when joined
    }
  }
  if (cal.words.size() < kMinWords) {
    return Status::Unavailable(fmt::format(
        "the server's tokenizer has {} of servebench's {} candidate words as one token each "
        "(and additive when joined); chat prompts of exact length need at least {}",
        cal.words.size(), std::size(kCandidateWords), kMinWords));
  }
  // The template's head: where two one-word messages' token ids first differ.
  const std::optional<ChatTokenization> a = tokenize(UserMessages(cal.words[0]));
  const std::optional<ChatTokenization> b = tokenize(UserMessages(cal.words[1]));
  if (a && b && !a->tokens.empty() && !b->tokens.empty()) {
    size_t k = 0;
    while (k < a->tokens.size() && k < b->tokens.size() && a->tokens[k] == b->tokens[k]) ++k;
    cal.head_tokens = static_cast<int64_t>(k);
    cal.head_measured = true;
  }
  cal.tail_tokens = empty->count - cal.head_tokens;
  return cal;
}

Status MakeChatTracePrompts(const BenchSettings& s, const ChatTokenizer& tokenize, uint64_t run_id,
                            TraceWorkload* w) {
  if (!tokenize) {
    return Status::Unavailable(
        fmt::format("--dataset-name {} on {}: a chat replay counts its prompts with the "
                    "server's /tokenize of messages, which this server does not answer",
                    s.dataset_name, EffectiveEndpoint(s)));
  }
  if (w->trace.text_messages) return MakeTextPrompts(s, tokenize, run_id, w);
  return MakeSynthesizedPrompts(s, tokenize, run_id, w);
}

}  // namespace servebench::client
