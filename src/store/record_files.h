// Ingesting record files (record/record_files.h: `<out>/records/<record_id>.json`):
// finding them under output folders and storing each. This is what `servebench
// ingest DIR...` does, and what the Slurm executor does with its tasks' records.
// Thread-compatible: uses the Store it is given, from the calling thread.
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

// Reads one record file (record::ReadRecordFile: any schema version, named after its
// record_id) and ingests it. Errors are prefixed with the path, e.g.
// `out/records/ab12.json: run_id: missing; a non-empty string of [A-Za-z0-9._-]`.
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
