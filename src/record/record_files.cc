#include "record/record_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "common/atomic_file.h"
#include "record/exact_json.h"
#include "record/record_json.h"

namespace servebench::record {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

// Records are small (a summary, no per-request data); refuse anything absurd.
constexpr size_t kMaxRecordBytes = size_t{64} << 20;

StatusOr<json::object> ParseObject(const std::string& path) {
  StatusOr<std::string> text = ReadFile(path, kMaxRecordBytes);
  if (!text.ok()) return text.status();  // ReadFile names the path
  StatusOr<json::value> value = ParseJsonExactly(*text);
  if (!value.ok()) {
    return Status::InvalidArgument(
        fmt::format("{}: not valid JSON ({}); a record file is one JSON object", path,
                    value.status().message()));
  }
  if (!value->is_object()) {
    return Status::InvalidArgument(
        fmt::format("{}: the JSON is not an object; a record file is one JSON object", path));
  }
  return std::move(value->get_object());
}

StatusOr<Record> RecordOf(const json::object& o, const std::string& path) {
  StatusOr<Record> record = FromJson(o);
  if (!record.ok()) return record.status().WithContext(path);
  std::string stem = fs::path(path).stem().string();
  if (record->record_id != stem) {
    return Status::InvalidArgument(
        fmt::format("{}: record_id is \"{}\" but the file is named {}.json; a record file is named "
                    "<record_id>.json (was it renamed or edited?)",
                    path, record->record_id, stem));
  }
  return record;
}

}  // namespace

StatusOr<std::string> WriteRecordFile(const std::string& records_dir, const Record& record) {
  std::string path = records_dir + "/" + record.record_id + ".json";
  SB_RETURN_IF_ERROR(WriteFileAtomically(path, ToJsonText(record) + "\n"));
  return path;
}

StatusOr<Record> ReadRecordFile(const std::string& path) {
  SB_ASSIGN_OR_RETURN(json::object o, ParseObject(path));
  return RecordOf(o, path);
}

StatusOr<std::vector<Record>> ReadRecordFolder(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::NotFound(
        fmt::format("--records {}: not a folder; give the folder that holds "
                    "the record JSON files (e.g. <out>/records)",
                    dir));
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".json" &&
        !it->path().filename().string().starts_with(".")) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<Record> out;
  for (const std::string& f : files) {
    SB_ASSIGN_OR_RETURN(json::object o, ParseObject(f));
    if (!o.contains("record_id")) continue;
    SB_ASSIGN_OR_RETURN(Record r, RecordOf(o, f));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace servebench::record
