// Records as text for people and spreadsheets: the CSV and JSON of
// `servebench results export`, and indented JSON for `results show`. Thread-safe
// (pure functions).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

namespace servebench::store {

// The CSV columns, in order: the record's identity and status fields, then the
// headline metrics of its summary (vllm-bench key names, docs/record.md).
const std::vector<std::string>& CsvColumns();

// One header line and one line per record (RFC 4180: fields with a comma, quote
// or newline are quoted). A field the record lacks is empty.
std::string RecordsToCsv(const std::vector<boost::json::object>& records);

// A JSON array of the records, one record per line.
std::string RecordsToJson(const std::vector<boost::json::object>& records);

// `value` as JSON indented by two spaces per level, ending with a newline.
std::string PrettyJson(const boost::json::value& value);

// The value at a dotted `path` ("summary.median_ttft_ms") as display text: strings
// as they are, numbers as JSON writes them, null or absent as "".
std::string FieldText(const boost::json::object& record, std::string_view path);

}  // namespace servebench::store
