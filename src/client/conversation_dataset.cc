#include "client/conversation_dataset.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <set>

#include "common/jsonl.h"
#include "common/speed_bench_names.h"

namespace servebench::client {
namespace {

namespace json = boost::json;

// What the Hub's SPEED-Bench rows hold where a source dataset's text goes: prepare.py
// replaces it with the fetched text. A file still holding it was never prepared, and
// benchmarking the placeholder would measure one sentence 880 times.
constexpr std::string_view kSourcePlaceholder =
    "FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH";

// The user turns of a row: prepare.py's "messages" or the raw "turns".
Status ReadTurns(const json::object& row, std::vector<std::string>* turns) {
  if (const json::value* m = row.if_contains("messages")) {
    if (!m->is_array()) return Status::InvalidArgument("\"messages\" must be a list");
    for (const json::value& msg : m->get_array()) {
      const json::object* o = msg.if_object();
      const json::value* content = o ? o->if_contains("content") : nullptr;
      if (content == nullptr || !content->is_string()) {
        return Status::InvalidArgument(
            "each of \"messages\" must be {\"role\": ..., \"content\": \"text\"}");
      }
      const json::value* role = o->if_contains("role");
      if (role != nullptr && role->is_string() && role->get_string() != "user") continue;
      turns->emplace_back(content->get_string());
    }
  } else if (const json::value* t = row.if_contains("turns")) {
    if (!t->is_array()) return Status::InvalidArgument("\"turns\" must be a list of strings");
    for (const json::value& turn : t->get_array()) {
      if (!turn.is_string()) return Status::InvalidArgument("\"turns\" must be a list of strings");
      turns->emplace_back(turn.get_string());
    }
  } else {
    return Status::InvalidArgument("the row has neither \"messages\" nor \"turns\"");
  }
  turns->erase(std::remove(turns->begin(), turns->end(), std::string()), turns->end());
  if (turns->empty()) return Status::InvalidArgument("the row has no non-empty user turn");
  for (const std::string& turn : *turns) {
    if (turn.find(kSourcePlaceholder) != std::string::npos) {
      return Status::InvalidArgument(
          "a turn still holds the Hub's source placeholder: prepare the subset with NVIDIA's "
          "prepare.py (docs/bench.md \"SPEED-Bench and Spec-Bench\") before benchmarking it");
    }
  }
  return Status::Ok();
}

// Reads every row of `path`, keeping those of `category` (empty = all). `allowed`
// (empty = any) is the set a row's category must belong to; `what` describes a line.
StatusOr<std::vector<ConversationRow>> LoadRows(const std::string& path, std::string_view what,
                                                const std::vector<std::string>& allowed,
                                                const std::string& subset_note,
                                                const std::string& category,
                                                std::set<std::string>* seen) {
  std::vector<ConversationRow> rows;
  SB_RETURN_IF_ERROR(
      ForEachJsonlObject(path, what, [&](size_t line, const json::object& o) -> Status {
        ConversationRow row;
        row.line = line;
        const json::value* c = o.if_contains("category");
        if (c == nullptr || !c->is_string() || c->get_string().empty()) {
          return Status::InvalidArgument("the row needs a string \"category\"");
        }
        row.category = std::string(c->get_string());
        if (!allowed.empty() &&
            std::find(allowed.begin(), allowed.end(), row.category) == allowed.end()) {
          return Status::InvalidArgument(
              fmt::format("category '{}' is not one of {} ({}): is this the right subset's file?",
                          row.category, subset_note, JoinNames(allowed)));
        }
        if (const json::value* id = o.if_contains("question_id")) {
          row.question_id = id->is_string() ? std::string(id->get_string()) : json::serialize(*id);
        }
        SB_RETURN_IF_ERROR(ReadTurns(o, &row.turns));
        seen->insert(row.category);
        if (category.empty() || row.category == category) rows.push_back(std::move(row));
        return Status::Ok();
      }));
  return rows;
}

}  // namespace

const std::vector<std::string>& SpecBenchCategories() {
  static const std::vector<std::string> kCategories = {
      "writing",    "roleplay",    "reasoning",     "math", "coding",         "extraction", "stem",
      "humanities", "translation", "summarization", "qa",   "math_reasoning", "rag"};
  return kCategories;
}

Status ValidateSpeedBenchSelection(const std::string& subset, const std::string& category) {
  const std::vector<std::string>& categories = SpeedBenchCategories(subset);
  if (categories.empty()) {
    return Status::InvalidArgument(
        fmt::format("--speed-bench-dataset-subset '{}': must be one of {}", subset,
                    JoinNames(SpeedBenchSubsets())));
  }
  if (!category.empty() &&
      std::find(categories.begin(), categories.end(), category) == categories.end()) {
    return Status::InvalidArgument(
        fmt::format("--speed-bench-category '{}': the {} subset's categories are {}", category,
                    subset, JoinNames(categories)));
  }
  return Status::Ok();
}

std::string SpeedBenchFile(const std::string& dataset_path, const std::string& subset) {
  std::error_code ec;
  if (std::filesystem::is_directory(dataset_path, ec)) {
    return (std::filesystem::path(dataset_path) / (subset + ".jsonl")).string();
  }
  return dataset_path;
}

StatusOr<std::vector<ConversationRow>> LoadSpeedBench(const std::string& dataset_path,
                                                      const std::string& subset,
                                                      const std::string& category) {
  SB_RETURN_IF_ERROR(ValidateSpeedBenchSelection(subset, category));
  const std::string file = SpeedBenchFile(dataset_path, subset);
  std::set<std::string> seen;
  SB_ASSIGN_OR_RETURN(
      std::vector<ConversationRow> rows,
      LoadRows(file,
               "SPEED-Bench rows hold {\"category\", \"messages\": [{\"role\", \"content\"}]} "
               "or {\"category\", \"turns\": [...]}",
               SpeedBenchCategories(subset), "the " + subset + " subset's categories", category,
               &seen));
  if (rows.empty()) {
    return Status::InvalidArgument(
        category.empty()
            ? file + ": no rows"
            : fmt::format("{}: no row of category '{}' (the file has {})", file, category,
                          JoinNames(std::vector<std::string>(seen.begin(), seen.end()))));
  }
  return rows;
}

StatusOr<std::vector<ConversationRow>> LoadSpecBench(const std::string& path,
                                                     const std::string& category) {
  std::set<std::string> seen;
  SB_ASSIGN_OR_RETURN(
      std::vector<ConversationRow> rows,
      LoadRows(path, "Spec-Bench rows hold {\"question_id\", \"category\", \"turns\": [...]}", {},
               "", category, &seen));
  if (rows.empty()) {
    return Status::InvalidArgument(
        category.empty()
            ? path + ": no rows"
            : fmt::format("{}: no row of category '{}' (the file has {})", path, category,
                          JoinNames(std::vector<std::string>(seen.begin(), seen.end()))));
  }
  return rows;
}

}  // namespace servebench::client
