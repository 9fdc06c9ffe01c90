#include "engine/failure_classifier.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <vector>

namespace servebench::engine {
namespace {

constexpr size_t kMaxQuotedChars = 300;

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string Trimmed(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  std::string out(line.substr(0, kMaxQuotedChars));
  if (line.size() > kMaxQuotedChars) out += "...";
  return out;
}

bool ContainsAny(std::string_view line, const std::vector<std::string>& needles) {
  for (const auto& n : needles) {
    if (line.find(n) != std::string_view::npos) return true;
  }
  return false;
}

bool Matches(const std::vector<std::string_view>& lines, size_t i, const FailureSignature& sig) {
  if (!ContainsAny(lines[i], sig.match)) return false;
  if (sig.near.empty()) return true;
  const size_t span = static_cast<size_t>(std::max(0, sig.near_lines));
  const size_t from = i > span ? i - span : 0;
  const size_t to = std::min(lines.size(), i + span + 1);
  for (size_t j = from; j < to; ++j) {
    if (ContainsAny(lines[j], sig.near)) return true;
  }
  return false;
}

const char* SituationKey(Situation situation) {
  switch (situation) {
    case Situation::kDiedBeforeReady:
      return "died_before_ready";
    case Situation::kReadinessTimeout:
      return "readiness_timeout";
    case Situation::kDiedDuringRun:
      return "died_during_run";
    case Situation::kStartFailed:
      return "start_failed";
    case Situation::kRequestsFailed:
      return "requests_failed";
  }
  return "start_failed";
}

}  // namespace

FailureClass DefaultClass(Situation situation) {
  switch (situation) {
    case Situation::kDiedBeforeReady:
      return failure_class::kServerDiedBeforeReady;
    case Situation::kReadinessTimeout:
      return failure_class::kServerReadinessTimeout;
    case Situation::kDiedDuringRun:
      return failure_class::kServerDiedDuringRun;
    case Situation::kStartFailed:
      return failure_class::kInfraStartFailed;
    case Situation::kRequestsFailed:
      return failure_class::kClientInvalidRun;
  }
  return failure_class::kInfraStartFailed;
}

namespace {

// True for a line that reads like an engine's error ("error:", "Error", "FATAL",
// "failed", "No such file", "unrecognized arguments", a Python "...Error: ...").
bool LooksLikeError(std::string_view line) {
  static const char* const kWords[] = {"error",        "Error",
                                       "ERROR",        "fatal",
                                       "Fatal",        "FATAL",
                                       "failed",       "Failed",
                                       "FAILED",       "No such file",
                                       "not found",    "Exception",
                                       "exception",    "unrecognized",
                                       "Unrecognized", "invalid",
                                       "Invalid",      "cannot",
                                       "Cannot",       "denied",
                                       "panic",        "Segmentation fault"};
  for (const char* w : kWords) {
    if (line.find(w) != std::string_view::npos) return true;
  }
  return false;
}

// The index of the line that explains a failure with no known signature: the first
// error-looking line of the last kExplainWindowLines non-empty lines, else the last
// non-empty line; lines.size() when every line is empty.
size_t ExplainingLine(const std::vector<std::string_view>& lines) {
  std::vector<size_t> tail;  // non-empty lines, newest first
  for (size_t i = lines.size(); i-- > 0 && tail.size() < kExplainWindowLines;) {
    if (!Trimmed(lines[i]).empty()) tail.push_back(i);
  }
  if (tail.empty()) return lines.size();
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
    if (LooksLikeError(lines[*it])) return *it;
  }
  return tail.front();
}

}  // namespace

EngineFailure ClassifyFailure(std::string_view log_text, Situation situation,
                              std::string_view what_happened, const SignatureCatalog& catalog) {
  const std::vector<std::string_view> lines = SplitLines(log_text);
  const FailureSignature* found = nullptr;
  size_t found_line = 0;
  for (bool secondary : {false, true}) {
    for (size_t i = 0; i < lines.size() && found == nullptr; ++i) {
      for (const auto& sig : catalog.signatures) {
        if (sig.secondary != secondary || !Matches(lines, i, sig)) continue;
        found = &sig;
        found_line = i;
        break;
      }
    }
    if (found != nullptr) break;
  }
  EngineFailure failure;
  if (found != nullptr) {
    failure.failure_class = found->failure_class;
    failure.signature_matched = true;
    failure.matched_line = Trimmed(lines[found_line]);
    failure.line_number = static_cast<int>(found_line) + 1;
    failure.meaning = found->meaning;
    failure.summary = fmt::format("{}; log line {}: \"{}\"{}", what_happened, failure.line_number,
                                  failure.matched_line,
                                  found->meaning.empty() ? "" : " (" + found->meaning + ")");
    return failure;
  }
  auto it = catalog.situations.find(SituationKey(situation));
  failure.failure_class = it != catalog.situations.end() ? it->second : DefaultClass(situation);
  size_t explaining = ExplainingLine(lines);
  if (explaining == lines.size()) {
    failure.summary = fmt::format("{}; the log is empty", what_happened);
    return failure;
  }
  failure.matched_line = Trimmed(lines[explaining]);
  failure.line_number = static_cast<int>(explaining) + 1;
  bool is_last = true;
  for (size_t j = explaining + 1; j < lines.size(); ++j)
    is_last = is_last && Trimmed(lines[j]).empty();
  failure.summary = fmt::format(
      "{}; no known failure signature in the log ({}: \"{}\")", what_happened,
      is_last ? std::string("last line") : fmt::format("log line {}", failure.line_number),
      failure.matched_line);
  return failure;
}

EngineFailure ClassifyLogFile(const std::string& path, Situation situation,
                              std::string_view what_happened, const SignatureCatalog& catalog,
                              size_t max_bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  std::string text;
  if (in.good()) {
    const std::streamoff size = in.tellg();
    const std::streamoff start = size > static_cast<std::streamoff>(max_bytes)
                                     ? size - static_cast<std::streamoff>(max_bytes)
                                     : 0;
    in.seekg(start);
    text.resize(static_cast<size_t>(size - start));
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
  }
  return ClassifyFailure(text, situation, what_happened, catalog);
}

}  // namespace servebench::engine
