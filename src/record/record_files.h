// Record files on disk: one Record per `<records dir>/<record_id>.json`, written
// atomically (a crash never leaves half a record) by run/ before it is stored, and
// read back by `ingest`, `regress --records` and `dashboard --records`.
// Thread-safe (no shared state).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "record/record.h"

namespace servebench::record {

// Writes `record` as `<records_dir>/<record_id>.json` (record_json.h's text plus a
// newline) atomically; returns the path. DataLoss when it cannot be written.
StatusOr<std::string> WriteRecordFile(const std::string& records_dir, const Record& record);

// Reads one record file: InvalidArgument prefixed with the path when it is not JSON,
// not a record (every field problem listed), or named after another record_id (a
// renamed file would lie about what it holds); NotFound when it does not exist.
StatusOr<Record> ReadRecordFile(const std::string& path);

// Every record in the `*.json` files at or below `dir`, files in name order. JSON
// files that are not records (no record_id: eval outputs, bench results) are
// skipped; a file that claims to be a record but is not one is an error naming it.
// NotFound when `dir` is not a folder.
StatusOr<std::vector<Record>> ReadRecordFolder(const std::string& dir);

}  // namespace servebench::record
