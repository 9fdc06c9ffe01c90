// gsm8k answer extraction and scoring, exactly as lm-evaluation-harness does it
// (lm_eval/tasks/gsm8k/gsm8k.yaml v3.0, lm_eval/filters/extraction.py,
// lm_eval/api/metrics.py `exact_match`). See docs/eval.md and
// shared reference evals.md §1.
//
// Filters (findall over the whole response; no match gives "[invalid]"):
//   strict-match      `#### (\-?[0-9\.\,]+)`; upstream takes the first match,
//                     InferenceX's task file the last (group_select -1).
//   flexible-extract  `(-?[$0-9.,]{2,})|(-?[0-9]+)`, last match; of a match's
//                     groups the first non-empty one. The value is stripped.
// exact_match deletes, in order, `,` then `\$` then `(?s).*#### ` then `\.$`
// from both the extracted answer and the reference, lower-cases both, compares.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace servebench::eval {

// The value lm-eval's RegexFilter uses when nothing matches.
inline constexpr std::string_view kInvalidAnswer = "[invalid]";

enum class StrictSelect { kFirst, kLast };

// The strict-match answer of `response`, or kInvalidAnswer.
std::string ExtractStrict(std::string_view response, StrictSelect select);

// The flexible-extract answer of `response`, or kInvalidAnswer.
std::string ExtractFlexible(std::string_view response);

// lm-eval's normalisation for gsm8k exact_match (the four regexes_to_ignore,
// then ignore_case). Applied to both sides before comparing.
std::string NormalizeForExactMatch(std::string_view text);

// True when `extracted` equals the reference after normalisation. `reference`
// is the full gsm8k answer ("...#### 72") or just the number.
bool ExactMatch(std::string_view extracted, std::string_view reference);

}  // namespace servebench::eval
