#include "metrics/failure_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace servebench::metrics {
namespace {

// Kinds by count, most first; ties by name so the text is stable.
std::vector<std::pair<std::string, int64_t>> ByCount(const RunSummary& s) {
  std::vector<std::pair<std::string, int64_t>> kinds(s.failures.begin(), s.failures.end());
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return kinds;
}

std::string Cut(std::string text, size_t max_chars) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > max_chars) text = text.substr(0, max_chars) + "…";
  return text;
}

}  // namespace

std::string FailureCounts(const RunSummary& s) {
  std::string out;
  for (const auto& [kind, n] : ByCount(s)) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, kind);
  }
  return out;
}

std::vector<std::string> FailureLines(const RunSummary& s, size_t max_message_chars) {
  std::vector<std::string> lines;
  for (const auto& [kind, n] : ByCount(s)) {
    std::string line = fmt::format("{} {}", n, kind);
    auto sample = s.failure_samples.find(kind);
    if (sample != s.failure_samples.end() && !sample->second.empty()) {
      line += " (" + Cut(sample->second, max_message_chars) + ")";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string FailureSummary(const RunSummary& s, size_t max_message_chars) {
  if (s.failed == 0) return "";
  std::string out = fmt::format("{} of {} requests failed: ", s.failed, s.completed + s.failed);
  std::vector<std::string> lines = FailureLines(s, max_message_chars);
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "; " : "") + lines[i];
  return out;
}

}  // namespace servebench::metrics
