// gsm8k-format datasets: JSONL, one {"question": ..., "answer": ...} object per
// line, the answer ending in "#### <number>" (openai/gsm8k, config "main").
// Blank lines are skipped; any other malformed line is an error naming file:line.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::eval {

struct GsmDoc {
  std::string question;
  std::string answer;  // full reference solution; its last "#### " gives the number
  bool operator==(const GsmDoc&) const = default;
};

// Reads `path`. InvalidArgument "<path>:<line>: ..." for a line that is not a JSON
// object with string fields "question" and "answer", or whose answer has no
// "#### "; NotFound when the file is missing; InvalidArgument when it is empty.
StatusOr<std::vector<GsmDoc>> LoadGsmJsonl(const std::string& path);

// The JSONL text of `docs` (one object per line, keys question then answer).
std::string GsmJsonl(const std::vector<GsmDoc>& docs);

}  // namespace servebench::eval
