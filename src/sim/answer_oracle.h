// AnswerOracle: the simulated engine's answering mode for accuracy evals. Given a
// prompt that ends with a gsm8k-style question (as written by `servebench eval
// make-synthetic`), it produces a completion ending in "The answer is N." — the
// right N, or a wrong one for a deterministic, seeded fraction of questions — so
// the whole eval path runs over real HTTP with a known expected score.
// Alternatively it answers from a JSONL file mapping questions to responses.
// Thread-safe after construction (read-only).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace servebench::sim {

struct AnswerOracleSettings {
  // Fraction of questions answered wrong, in [0, 1]. Which questions are wrong is a
  // pure function of (seed, question text), so a run's expected score is known.
  double error_rate = 0;
  uint64_t seed = 0;
  // When set, answers come from this JSONL file ({"question": ..., "response": ...}
  // per line) instead of arithmetic.
  std::string answers_path;
};

class AnswerOracle {
 public:
  // Fails when answers_path cannot be read or a line is malformed (file:line).
  static StatusOr<std::unique_ptr<AnswerOracle>> Create(const AnswerOracleSettings& settings);
  virtual ~AnswerOracle() = default;

  // The completion text for `prompt` (the last question in it is answered), or
  // nullopt when the prompt holds no question the oracle understands (the server
  // then generates its ordinary filler text).
  virtual std::optional<std::string> Answer(std::string_view prompt) const = 0;
};

// The text of the last "Question: " in `prompt`, up to the end of its line and
// trimmed; nullopt when the prompt has none. This is the key for both modes.
std::optional<std::string> LastQuestion(std::string_view prompt);

// Whether the arithmetic oracle answers `question` wrong: u(seed, question) <
// error_rate, where u in [0, 1) is the top 53 bits of splitmix64(FNV-1a-64 over
// the 8 little-endian seed bytes then the question bytes). Exposed so tests and
// benchmarks can compute a run's expected score exactly.
bool OracleAnswersWrong(uint64_t seed, double error_rate, std::string_view question);

}  // namespace servebench::sim
