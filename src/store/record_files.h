// Record files on disk: finding them under output folders and ingesting them. This
// is what `servebench ingest DIR...` does, and what `run` calls for each record it
// writes (`<out>/records/<record_id>.json`, docs/record.md). Thread-compatible: uses
// the Store it is given, from the calling thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/store.h"

namespace servebench::store {

// Every `*.json` file directly inside a folder named `records` at or below `root`
// (so `<out>`, `<out>/records` and a folder of many `<out>`s all work), sorted.
// Temporary files of atomic writes (`*.json.tmp.<pid>`) are not included.
// NotFound if `root` does not exist; InvalidArgument if it is not a folder.
StatusOr<std::vector<std::string>> FindRecordFiles(const std::string& root);

// Reads, parses, validates and ingests one record file. The file name must be
// `<record_id>.json` (a renamed file is refused: its name would lie about it).
// Errors are prefixed with the path, e.g.
// `out/records/ab12.json: record_id: missing; a non-empty string of [A-Za-z0-9._-]`.
StatusOr<IngestOutcome> IngestRecordFile(Store& store, const std::string& path);

// The outcome of one file in IngestRecordFiles.
struct FileOutcome {
  std::string path;
  std::optional<IngestOutcome> outcome;  // set when ingested (or already present)
  Status error;                          // set when the file was refused
};

// IngestRecordFile for each of `paths`; invalid files do not stop the others, but
// a database failure (Unavailable, DataLoss) does, and is returned.
StatusOr<std::vector<FileOutcome>> IngestRecordFiles(Store& store,
                                                     const std::vector<std::string>& paths);

}  // namespace servebench::store
