// JsonFields: strict reading of one JSON object of a trace file. Every failure names
// the field (as a path from the row: "requests[3].in"), the bad value and the rule;
// the caller puts the place in front (ForEachJsonlObject adds "file:line: "), e.g.
//   traces.jsonl:12: input_length = -5: must be an integer >= 1
// Unknown keys are rejected with the list of allowed ones, so a misspelt field is an
// error rather than a silently ignored one. Not thread-safe; lives for one object.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace servebench::trace {

class JsonFields {
 public:
  // `path` is the object's place in its row ("" for the row itself, "requests[3]"),
  // prefixed to every field name in messages.
  JsonFields(const boost::json::object& object, std::string path);

  const std::string& path() const { return path_; }
  // `key` as a path from the row: "requests[3].in".
  std::string FieldPath(std::string_view key) const;
  bool Has(std::string_view key) const;  // present and not null

  // Fails on the first key not in `allowed`.
  Status OnlyKeys(const std::vector<std::string_view>& allowed) const;
  // An integer >= `min` (a JSON number with no fraction). Absent: nullopt, or an error
  // when `required`.
  StatusOr<std::optional<int64_t>> Int(std::string_view key, bool required, int64_t min) const;
  // A finite number >= `min`.
  StatusOr<std::optional<double>> Number(std::string_view key, bool required, double min) const;
  StatusOr<std::optional<std::string>> String(std::string_view key, bool required) const;
  // A list of integers >= 0 (hash ids).
  StatusOr<std::optional<std::vector<uint64_t>>> IdList(std::string_view key, bool required) const;
  // An array of objects (absent: nullptr).
  StatusOr<const boost::json::array*> Array(std::string_view key, bool required) const;

  // "<path>.<key> = <value>: <rule>" as InvalidArgument.
  Status Error(std::string_view key, std::string_view rule) const;

 private:
  const boost::json::value* Get(std::string_view key) const;
  Status MissingError(std::string_view key) const;

  const boost::json::object& object_;
  std::string path_;
};

}  // namespace servebench::trace
