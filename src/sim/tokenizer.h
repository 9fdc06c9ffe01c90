// Tokenizer: the simulated engine's deterministic built-in tokenizer. It is not a
// real model's BPE; it only has to count text the same way every time, turn token
// ids into text and back, and make generated text re-tokenize to exactly the
// number of tokens that were generated.
//
// The rule (docs/simulator.md, "Tokenizer"):
//   - A run of ASCII letters is cut into pieces of at most 6 letters; a run of
//     digits into pieces of at most 3 digits.
//   - Every other non-space character (ASCII punctuation, or one whole UTF-8
//     character) is one piece.
//   - One space directly before a piece belongs to that piece; any other
//     whitespace run (newlines, tabs, several spaces) is one piece of its own.
//   - A piece's id is FNV-1a of its bytes modulo the vocabulary size.
// Generated tokens are " " + a word of 1-3 consonant-vowel syllables (≤ 6 letters)
// named by the token id, so each is exactly one piece when tokenized again.
// Thread-safe (stateless after construction).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace servebench::sim {

class Tokenizer {
 public:
  explicit Tokenizer(uint32_t vocab_size = 128256) : vocab_size_(vocab_size) {}

  uint32_t vocab_size() const { return vocab_size_; }

  // Number of pieces in `text` (no allocation).
  size_t Count(std::string_view text) const;
  // The pieces of `text`, in order; concatenated they give `text` back.
  std::vector<std::string_view> Pieces(std::string_view text) const;
  // Token ids of `text`.
  std::vector<uint32_t> Encode(std::string_view text) const;
  // The text of one generated token: " " + its word. Appends to `out`.
  void AppendTokenText(uint32_t id, std::string* out) const;
  // The text of a list of ids (each rendered as AppendTokenText does).
  std::string Decode(const std::vector<uint32_t>& ids) const;

 private:
  uint32_t vocab_size_;
};

}  // namespace servebench::sim
