#include "eval/dataset.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "common/jsonl.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;

StatusOr<GsmDoc> FromObject(const json::object* object) {
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
  std::vector<GsmDoc> docs;
  SB_RETURN_IF_ERROR(ForEachJsonlObject(path, "gsm8k lines hold \"question\" and \"answer\"",
                                        [&](size_t, const json::object& object) -> Status {
                                          SB_ASSIGN_OR_RETURN(GsmDoc doc, FromObject(&object));
                                          docs.push_back(std::move(doc));
                                          return Status::Ok();
                                        }));
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
