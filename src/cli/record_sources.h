// Where `regress` and `dashboard` read records from: the store (--db, narrowed by a
// RecordFilter, in build-date order) and/or folders of record files (--records).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "record/record.h"
#include "store/store.h"

namespace servebench::cli {

struct LoadedRecords {
  std::vector<record::Record> records;
  std::vector<std::string> sources;  // the store's Describe() and each folder, as read
};

// Errors name the store or folder: NotFound for a SQLite file that does not exist
// (reading never creates one), the store's own Status (Unavailable, DataLoss, ...)
// with its description; a folder's NotFound or InvalidArgument naming the file
// (record/record_files.h).
StatusOr<LoadedRecords> LoadRecords(const std::string& db,
                                    const std::vector<std::string>& record_dirs,
                                    store::RecordFilter filter = {});

}  // namespace servebench::cli
