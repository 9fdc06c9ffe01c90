// Records as text for people and spreadsheets: the CSV and JSON of
// `servebench results export`, indented JSON for `results show`. Columns are Record
// fields (the headline metrics under their metrics/headline.h names), never JSON
// paths. Thread-safe (pure functions).
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "record/record.h"

namespace servebench::record {

// The CSV columns, in order: identity, configuration and status, the build and
// provenance (build.date, provenance.started_at, ...), then every headline metric.
const std::vector<std::string>& CsvColumns();

// One header line and one line per record (RFC 4180: fields with a comma, quote or
// newline are quoted). A value the record lacks is empty.
std::string RecordsToCsv(const std::vector<Record>& records);

// A JSON array of the records (record_json.h), one record per line.
std::string RecordsToJson(const std::vector<Record>& records);

// `value` as JSON indented by two spaces per level, ending with a newline.
std::string IndentedJson(const boost::json::value& value);

}  // namespace servebench::record
