#include "store/record_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <system_error>

#include "common/atomic_file.h"

namespace servebench::store {
namespace fs = std::filesystem;

namespace {

// Records are small (a summary, no per-request data); refuse anything absurd.
constexpr size_t kMaxRecordBytes = size_t{64} << 20;

bool IsRecordFile(const fs::directory_entry& entry) {
  std::error_code ec;
  return entry.is_regular_file(ec) && entry.path().extension() == ".json" &&
         entry.path().parent_path().filename() == "records" &&
         !entry.path().filename().string().starts_with(".");
}

// Reads and parses one record file; every error names the file.
StatusOr<boost::json::object> LoadRecordFile(const std::string& path) {
  StatusOr<std::string> text = ReadFile(path, kMaxRecordBytes);
  if (!text.ok()) return text.status();  // ReadFile names the path
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(*text, ec);
  if (ec) {
    return Status::InvalidArgument(fmt::format(
        "{}: not valid JSON ({}); a record file is one JSON object", path, ec.message()));
  }
  if (!value.is_object()) {
    return Status::InvalidArgument(
        fmt::format("{}: the JSON is not an object; a record file is one JSON object", path));
  }
  const boost::json::value* id = value.get_object().if_contains("record_id");
  std::string stem = fs::path(path).stem().string();
  if (id != nullptr && id->is_string() && id->get_string() != stem) {
    return Status::InvalidArgument(
        fmt::format("{}: record_id is \"{}\" but the file is named {}.json; a record file is named "
                    "<record_id>.json (was it renamed or edited?)",
                    path, std::string_view(id->get_string()), stem));
  }
  return std::move(value.get_object());
}

}  // namespace

StatusOr<std::vector<std::string>> FindRecordFiles(const std::string& root) {
  std::error_code ec;
  fs::file_status st = fs::status(root, ec);
  if (ec || !fs::exists(st)) {
    return Status::NotFound(
        fmt::format("{}: no such folder; give a --out folder of servebench run", root));
  }
  if (!fs::is_directory(st)) {
    return Status::InvalidArgument(
        fmt::format("{}: not a folder; give a folder that holds records/<record_id>.json", root));
  }
  std::vector<std::string> files;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return Status::Unavailable(fmt::format("{}: cannot list: {}", root, ec.message()));
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Status::Unavailable(fmt::format("{}: cannot list: {}", root, ec.message()));
    if (IsRecordFile(*it)) files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

StatusOr<IngestOutcome> IngestRecordFile(Store& store, const std::string& path) {
  SB_ASSIGN_OR_RETURN(boost::json::object record, LoadRecordFile(path));
  StatusOr<IngestOutcome> outcome = store.Ingest(record);
  if (!outcome.ok()) return outcome.status().WithContext(path);
  return outcome;
}

StatusOr<std::vector<FileOutcome>> IngestRecordFiles(Store& store,
                                                     const std::vector<std::string>& paths) {
  std::vector<FileOutcome> outcomes;
  outcomes.reserve(paths.size());
  for (const std::string& path : paths) {
    StatusOr<boost::json::object> record = LoadRecordFile(path);
    if (!record.ok()) {
      outcomes.push_back({path, std::nullopt, record.status()});
      continue;
    }
    StatusOr<IngestOutcome> outcome = store.Ingest(*record);
    if (outcome.ok()) {
      outcomes.push_back({path, *outcome, Status::Ok()});
    } else if (outcome.status().code() == StatusCode::kInvalidArgument) {
      outcomes.push_back({path, std::nullopt, outcome.status().WithContext(path)});
    } else {
      // The database, not the file, is the problem: the other files would fail too.
      return outcome.status().WithContext(path);
    }
  }
  return outcomes;
}

}  // namespace servebench::store
