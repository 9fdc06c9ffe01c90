// ToolCallText: the `arguments` text of the one tool call a simulated model makes
// when a chat request asks for one (openai_request.h tool_call_name). Every output
// token adds a piece of one JSON object, {"query": "<filler words>"}: the first
// token opens it, each later one adds a word, and the last token of a natural stop
// closes it. A generation cut before its stop (max_tokens, an abort) leaves the
// object open, so its arguments are invalid JSON, as a real model's are when
// max_tokens truncates a call. Not thread-safe: one per request.
#pragma once

#include <string>

#include "sim/text_source.h"

namespace servebench::sim {

class ToolCallText {
 public:
  // `text` (the request's text source, for the words) must outlive this object.
  explicit ToolCallText(TextSource* text) : text_(text) {}

  // Appends the arguments text of the next `count` tokens to `out`. `closes`: these
  // are the last tokens of a generation that stopped naturally, so the object ends
  // with them (a call of one token is then `{}`).
  void Next(int count, bool closes, std::string* out);

  int tokens() const { return tokens_; }

 private:
  TextSource* text_;
  int tokens_ = 0;
  std::string word_;
};

}  // namespace servebench::sim
