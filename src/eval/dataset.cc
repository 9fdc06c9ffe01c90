#include "eval/dataset.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "common/atomic_file.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;

StatusOr<GsmDoc> ParseLine(std::string_view line) {
  boost::system::error_code ec;
  json::value value = json::parse(line, ec);
  if (ec) return Status::InvalidArgument(fmt::format("not valid JSON ({})", ec.message()));
  const json::object* object = value.if_object();
  if (object == nullptr) return Status::InvalidArgument("expected a JSON object per line");
  GsmDoc doc;
  for (const char* key : {"question", "answer"}) {
    const json::value* field = object->if_contains(key);
    if (field == nullptr || !field->is_string()) {
      return Status::InvalidArgument(
          fmt::format("field \"{}\" is missing or not a string (gsm8k lines need "
                      "\"question\" and \"answer\")",
                      key));
    }
    (std::string_view(key) == "question" ? doc.question : doc.answer) =
        std::string(field->as_string());
  }
  if (doc.answer.find("#### ") == std::string::npos) {
    return Status::InvalidArgument(
        "\"answer\" has no \"#### <number>\" final line (gsm8k references end with one)");
  }
  return doc;
}

}  // namespace

StatusOr<std::vector<GsmDoc>> LoadGsmJsonl(const std::string& path) {
  SB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::vector<GsmDoc> docs;
  size_t line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    auto doc = ParseLine(line);
    if (!doc.ok()) {
      return Status::InvalidArgument(
          fmt::format("{}:{}: {}", path, line_number, doc.status().message()));
    }
    docs.push_back(std::move(doc).value());
  }
  if (docs.empty()) {
    return Status::InvalidArgument(
        fmt::format("{}: no questions (expected gsm8k JSONL lines)", path));
  }
  return docs;
}

std::string GsmJsonl(const std::vector<GsmDoc>& docs) {
  std::string out;
  for (const GsmDoc& doc : docs) {
    json::object object;
    object["question"] = doc.question;
    object["answer"] = doc.answer;
    out += json::serialize(object);
    out += '\n';
  }
  return out;
}

}  // namespace servebench::eval
