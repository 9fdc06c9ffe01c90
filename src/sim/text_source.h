// TextSource: the text of a request's output tokens. Filler tokens are drawn from a
// splitmix64 stream seeded by (server seed, request seed or prompt hash), so the
// same request gives the same text whatever else the server is doing. In answering
// mode the answer's pieces come first. Not thread-safe: one per request.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/tokenizer.h"

namespace servebench::sim {

class TextSource {
 public:
  TextSource(const Tokenizer* tokenizer, uint64_t seed, std::string answer = "");

  // Appends the text of the next `count` tokens to `out`.
  void Next(int count, std::string* out);
  // Tokens in the answer (0 without one).
  int answer_tokens() const { return static_cast<int>(answer_pieces_.size()); }

 private:
  const Tokenizer* tokenizer_;
  uint64_t state_;
  std::string answer_;
  std::vector<std::string_view> answer_pieces_;
  size_t next_piece_ = 0;
};

}  // namespace servebench::sim
