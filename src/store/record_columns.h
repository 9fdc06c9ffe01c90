// RecordColumns: the fields of a Record (record/record.h) that the store keeps in
// indexed columns beside the record's whole JSON, so queries filter without reading
// JSON. Both backends use this, so a record stored by one reads the same from the
// other. Thread-safe (pure functions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "record/record.h"

namespace servebench::store {

struct RecordColumns {
  std::string record_id;
  std::string run_id;
  std::string point_id;
  std::string session_id;  // "" when absent
  std::string series_id;   // "" when absent
  std::string recipe;
  std::string engine;
  std::string model;
  std::string hardware;   // "" when absent
  std::string precision;  // "" when absent
  std::string status;
  std::string failure_class;           // "" when ok
  std::optional<int64_t> concurrency;  // absent for records with no load run
  std::string build_date;              // build.date, "" when absent
  std::string build_commit;            // build.commit
  std::string build_image;             // build.image
  std::string started_at;              // provenance.started_at (RFC 3339 UTC)
  std::string ended_at;                // provenance.ended_at, "" when absent
};

// The indexed columns of `record`.
RecordColumns ColumnsOf(const record::Record& record);

}  // namespace servebench::store
