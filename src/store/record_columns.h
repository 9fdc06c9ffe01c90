// RecordColumns: the fields of a Record (docs/record.md) that the store keeps in
// indexed columns beside the whole JSON, and the validation that extracts them.
// Both backends use this, so a record valid for one is valid for the other.
// Thread-safe (pure functions).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::store {

// The record schema_version this store understands.
inline constexpr int64_t kRecordSchemaVersion = 1;

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
  std::string failure_class;           // "" when absent or ok
  std::optional<int64_t> concurrency;  // absent for records with no load run
  std::string build_date;              // build.date, "" when absent
  std::string build_commit;            // build.commit
  std::string build_image;             // build.image
  std::string started_at;              // provenance.started_at (RFC 3339 UTC)
  std::string ended_at;                // provenance.ended_at, "" when absent
};

// Checks `record` against docs/record.md and returns its indexed columns.
// InvalidArgument lists every problem found, each as "<field>: <what is wrong>;
// <rule>", e.g. `record_id: missing; a non-empty string of [A-Za-z0-9._-]`.
// Required: schema_version (= 1), record_id, run_id, point_id, recipe, engine,
// model, status (ok|failed|invalid|blocked|skipped), provenance.started_at.
// Optional fields, when present and not null, must have the documented type.
StatusOr<RecordColumns> ExtractRecordColumns(const boost::json::object& record);

// True if `status` is one of the five record statuses.
bool IsRecordStatus(std::string_view status);

// Structural equality where numbers compare by value (2 == 2.0), so a record read
// back from a database that normalises numbers still equals the one written.
bool JsonEquivalent(const boost::json::value& a, const boost::json::value& b);

}  // namespace servebench::store
