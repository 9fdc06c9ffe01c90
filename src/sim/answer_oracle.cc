// The arithmetic oracle parses the question grammar written by `servebench eval
// make-synthetic` (eval/synthetic.h states it); it is implemented here
// independently of the generator, so an eval run that scores exactly the expected
// accuracy shows both sides, and everything between them, agree.
#include "sim/answer_oracle.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>
#include <unordered_map>
#include <vector>

#include "common/jsonl.h"
#include "common/splitmix64.h"

namespace servebench::sim {
namespace {

namespace json = boost::json;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// The integer that starts right after `marker` in `sentence`.
std::optional<int64_t> NumberAfter(std::string_view sentence, std::string_view marker) {
  size_t at = sentence.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  const char* begin = sentence.data() + at + marker.size();
  const char* end = sentence.data() + sentence.size();
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  return value;
}

// Splits on ". " and "? " (and a final '.' or '?'), dropping the punctuation.
std::vector<std::string_view> Sentences(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    bool stop = (text[i] == '.' || text[i] == '?') && (i + 1 == text.size() || text[i + 1] == ' ');
    if (stop) {
      out.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (start < text.size() && !Trim(text.substr(start)).empty())
    out.push_back(Trim(text.substr(start)));
  return out;
}

struct Worked {
  int64_t answer = 0;
  std::string steps;  // the reasoning lines
};

std::optional<Worked> Solve(std::string_view question) {
  std::vector<std::string_view> sentences = Sentences(question);
  if (sentences.size() < 3 || !sentences.back().starts_with("How many ")) return std::nullopt;
  auto start = NumberAfter(sentences.front(), " has ");
  if (!start) return std::nullopt;
  Worked worked{*start, fmt::format("We start with {}.\n", *start)};
  for (size_t i = 1; i + 1 < sentences.size(); ++i) {
    std::string_view s = sentences[i];
    int64_t before = worked.answer;
    if (s.find(" boxes with ") != std::string_view::npos) {
      auto boxes = NumberAfter(s, " buys ");
      auto each = NumberAfter(s, " boxes with ");
      if (!boxes || !each) return std::nullopt;
      worked.answer += *boxes * *each;
      worked.steps += fmt::format("{} + {} * {} = {}.\n", before, *boxes, *each, worked.answer);
    } else if (s.find(" more ") != std::string_view::npos) {
      auto more = NumberAfter(s, " buys ");
      if (!more) return std::nullopt;
      worked.answer += *more;
      worked.steps += fmt::format("{} + {} = {}.\n", before, *more, worked.answer);
    } else if (auto away = NumberAfter(s, " gives away ")) {
      worked.answer -= *away;
      worked.steps += fmt::format("{} - {} = {}.\n", before, *away, worked.answer);
    } else {
      return std::nullopt;
    }
  }
  return worked;
}

uint64_t QuestionHash(uint64_t seed, std::string_view question) {
  // FNV-1a 64 over the seed's eight bytes (little end first), then the question.
  char seed_bytes[8];
  for (int i = 0; i < 8; ++i) seed_bytes[i] = static_cast<char>(seed >> (8 * i));
  const uint64_t h = Fnv1a64(question, Fnv1a64(std::string_view(seed_bytes, 8)));
  // The SplitMix64 finaliser: FNV's low bits alone are poorly mixed.
  return SplitMix64Finalize(h);
}

class ArithmeticOracle : public AnswerOracle {
 public:
  explicit ArithmeticOracle(AnswerOracleSettings settings) : settings_(std::move(settings)) {}

  std::optional<std::string> Answer(std::string_view prompt) const override {
    std::optional<std::string> question = LastQuestion(prompt);
    if (!question) return std::nullopt;
    std::optional<Worked> worked = Solve(*question);
    if (!worked) return std::nullopt;
    int64_t answer = worked->answer;
    if (OracleAnswersWrong(settings_.seed, settings_.error_rate, *question)) {
      answer += 1 + static_cast<int64_t>((QuestionHash(settings_.seed ^ 1, *question) >> 7) % 9);
    }
    return fmt::format("{}The answer is {}.\n#### {}", worked->steps, answer, answer);
  }

 private:
  AnswerOracleSettings settings_;
};

class FileOracle : public AnswerOracle {
 public:
  explicit FileOracle(std::unordered_map<std::string, std::string> responses)
      : responses_(std::move(responses)) {}

  std::optional<std::string> Answer(std::string_view prompt) const override {
    std::optional<std::string> question = LastQuestion(prompt);
    if (!question) return std::nullopt;
    auto it = responses_.find(*question);
    if (it == responses_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::unordered_map<std::string, std::string> responses_;
};

StatusOr<std::unordered_map<std::string, std::string>> LoadResponses(const std::string& path) {
  constexpr std::string_view kLine =
      "expected a JSON object with string fields \"question\" and \"response\"";
  std::unordered_map<std::string, std::string> responses;
  SB_RETURN_IF_ERROR(
      ForEachJsonlObject(path, kLine, [&](size_t, const json::object& object) -> Status {
        const json::value* question = object.if_contains("question");
        const json::value* response = object.if_contains("response");
        if (!question || !question->is_string() || !response || !response->is_string()) {
          return Status::InvalidArgument(std::string(kLine));
        }
        responses[std::string(Trim(std::string_view(question->as_string())))] =
            std::string(response->as_string());
        return Status::Ok();
      }));
  return responses;
}

}  // namespace

std::optional<std::string> LastQuestion(std::string_view prompt) {
  static constexpr std::string_view kMarker = "Question: ";
  size_t at = prompt.rfind(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = prompt.substr(at + kMarker.size());
  rest = Trim(rest.substr(0, rest.find('\n')));
  if (rest.empty()) return std::nullopt;
  return std::string(rest);
}

bool OracleAnswersWrong(uint64_t seed, double error_rate, std::string_view question) {
  double u = static_cast<double>(QuestionHash(seed, question) >> 11) * 0x1.0p-53;
  return u < error_rate;
}

StatusOr<std::unique_ptr<AnswerOracle>> AnswerOracle::Create(const AnswerOracleSettings& settings) {
  if (!(settings.error_rate >= 0 && settings.error_rate <= 1)) {
    return Status::InvalidArgument(
        fmt::format("answer error rate {} is outside [0, 1]", settings.error_rate));
  }
  if (!settings.answers_path.empty()) {
    SB_ASSIGN_OR_RETURN(auto responses, LoadResponses(settings.answers_path));
    return std::unique_ptr<AnswerOracle>(std::make_unique<FileOracle>(std::move(responses)));
  }
  return std::unique_ptr<AnswerOracle>(std::make_unique<ArithmeticOracle>(settings));
}

}  // namespace servebench::sim
