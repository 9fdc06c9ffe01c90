// Hand-written equivalents of lm-eval's two gsm8k regexes. They reproduce
// Python `re.findall` exactly (leftmost match, first alternative first, greedy,
// non-overlapping, scanning resumes at a match's end) without std::regex, whose
// libstdc++ executor recurses per character and is slow on long reasoning traces.
// extraction_test.cc checks a table of responses against results computed with
// Python's `re` and lm-eval's patterns.
#include "eval/extraction.h"

#include <cctype>
#include <optional>
#include <vector>

namespace servebench::eval {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsStrictClass(char c) { return IsDigit(c) || c == '.' || c == ','; }
bool IsFlexClass(char c) { return IsDigit(c) || c == '$' || c == '.' || c == ','; }

// Length of the run of characters satisfying `pred` starting at `pos`.
template <typename Pred>
size_t RunLength(std::string_view s, size_t pos, Pred pred) {
  size_t end = pos;
  while (end < s.size() && pred(s[end])) ++end;
  return end - pos;
}

struct Match {
  size_t begin = 0;  // of the captured group
  size_t end = 0;    // of the captured group (== end of the whole match)
};

// `#### (\-?[0-9\.\,]+)` anchored at `pos`.
std::optional<Match> StrictAt(std::string_view s, size_t pos) {
  static constexpr std::string_view kPrefix = "#### ";
  if (s.substr(pos, kPrefix.size()) != kPrefix) return std::nullopt;
  size_t group = pos + kPrefix.size();
  size_t p = group;
  if (p < s.size() && s[p] == '-') ++p;         // `\-?` greedy; with no class char after it
  size_t run = RunLength(s, p, IsStrictClass);  // backtracking to "" cannot help: '-'
  if (run == 0) return std::nullopt;            // is not in the class.
  return Match{group, p + run};
}

// `(-?[$0-9.,]{2,})|(-?[0-9]+)` anchored at `pos`.
std::optional<Match> FlexibleAt(std::string_view s, size_t pos) {
  size_t p = pos;
  if (p < s.size() && s[p] == '-') ++p;
  size_t run = RunLength(s, p, IsFlexClass);
  if (run >= 2) return Match{pos, p + run};
  size_t digits = RunLength(s, p, IsDigit);
  if (digits >= 1) return Match{pos, p + digits};
  return std::nullopt;  // with '-' dropped, s[pos] == '-' matches neither class
}

template <typename At>
std::vector<Match> FindAll(std::string_view s, At at) {
  std::vector<Match> matches;
  size_t pos = 0;
  while (pos < s.size()) {
    if (auto m = at(s, pos)) {
      matches.push_back(*m);
      pos = m->end;  // matches are never empty
    } else {
      ++pos;
    }
  }
  return matches;
}

std::string Strip(std::string_view s) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

std::string Group(std::string_view s, const Match& m) {
  return Strip(s.substr(m.begin, m.end - m.begin));
}

}  // namespace

std::string ExtractStrict(std::string_view response, StrictSelect select) {
  auto matches = FindAll(response, StrictAt);
  if (matches.empty()) return std::string(kInvalidAnswer);
  return Group(response, select == StrictSelect::kFirst ? matches.front() : matches.back());
}

std::string ExtractFlexible(std::string_view response) {
  auto matches = FindAll(response, FlexibleAt);
  if (matches.empty()) return std::string(kInvalidAnswer);
  return Group(response, matches.back());
}

std::string NormalizeForExactMatch(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // `,` and `\$`: deleted everywhere (two passes in lm-eval; order does not matter
  // for single-character deletions).
  for (char c : text) {
    if (c != ',' && c != '$') out.push_back(c);
  }
  // `(?s).*#### `: greedy from the first position, so everything through the
  // LAST "#### " goes; nothing is left for a second match.
  if (size_t last = out.rfind("#### "); last != std::string::npos) out.erase(0, last + 5);
  // `\.$`: Python's `$` also matches before a final newline, so "5.\n" loses its
  // dot; only one of the two positions can hold a '.'.
  if (!out.empty() && out.back() == '.') {
    out.pop_back();
  } else if (out.size() >= 2 && out.back() == '\n' && out[out.size() - 2] == '.') {
    out.erase(out.size() - 2, 1);
  }
  // ignore_case: Python's str.lower(); ASCII here (gsm8k answers are numbers).
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ExactMatch(std::string_view extracted, std::string_view reference) {
  return NormalizeForExactMatch(extracted) == NormalizeForExactMatch(reference);
}

}  // namespace servebench::eval
