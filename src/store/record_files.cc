#include "store/record_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "record/record_files.h"

namespace servebench::store {
namespace fs = std::filesystem;

namespace {

bool IsRecordFile(const fs::directory_entry& entry) {
  std::error_code ec;
  return entry.is_regular_file(ec) && entry.path().extension() == ".json" &&
         entry.path().parent_path().filename() == "records" &&
         !entry.path().filename().string().starts_with(".");
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
  SB_ASSIGN_OR_RETURN(record::Record record, record::ReadRecordFile(path));
  StatusOr<IngestOutcome> outcome = store.Ingest(record);
  if (!outcome.ok()) return outcome.status().WithContext(path);
  return outcome;
}

StatusOr<std::vector<FileOutcome>> IngestRecordFiles(Store& store,
                                                     const std::vector<std::string>& paths) {
  std::vector<FileOutcome> outcomes;
  outcomes.reserve(paths.size());
  for (const std::string& path : paths) {
    StatusOr<record::Record> record = record::ReadRecordFile(path);
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
