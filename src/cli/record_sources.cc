#include "cli/record_sources.h"

#include <fmt/format.h>

#include <filesystem>

#include "cli/flag_checks.h"
#include "record/record_files.h"

namespace servebench::cli {

StatusOr<LoadedRecords> LoadRecords(const std::string& db,
                                    const std::vector<std::string>& record_dirs,
                                    store::RecordFilter filter) {
  LoadedRecords out;
  if (!db.empty()) {
    // Reading must not create a database where there was none (a typo in --db).
    SB_RETURN_IF_ERROR(CheckStoreToRead(db));
    SB_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> s, store::Open(db));
    filter.order = store::RecordFilter::Order::kBuildDate;
    StatusOr<std::vector<record::Record>> got = s->Query(filter);
    if (!got.ok()) return got.status().WithContext(s->Describe());
    out.records = std::move(*got);
    out.sources.push_back(s->Describe());
  }
  for (const std::string& dir : record_dirs) {
    SB_ASSIGN_OR_RETURN(std::vector<record::Record> got, record::ReadRecordFolder(dir));
    out.records.insert(out.records.end(), std::make_move_iterator(got.begin()),
                       std::make_move_iterator(got.end()));
    out.sources.push_back(dir);
  }
  return out;
}

}  // namespace servebench::cli
