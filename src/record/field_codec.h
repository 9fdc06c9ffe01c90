// The JSON form of each field type of record_fields.h: how a value is written, how it
// is read back with a field-path error, and the rule a message (and the README's
// field table) states for it. Internal to record/; record_json.cc composes these.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "record/record.h"
#include "record/record_fields.h"

namespace servebench::record::internal {

// Every problem of one read, so one message lists them all.
class Problems {
 public:
  void Add(std::string_view path, std::string_view what, std::string_view rule);
  bool empty() const { return items_.empty(); }
  // "<path>: <what>; <rule>; and <path>: ..."
  std::string Join() const;

 private:
  std::vector<std::string> items_;
};

// "a string", "an integer", ...: what a JSON value is, for "is <kind> (<value>)".
std::string Described(const boost::json::value& v);

// The rule of a field of type T, e.g. "a non-empty string of [A-Za-z0-9._-], at most
// 256 bytes" or "one of ok, failed, invalid, blocked, skipped".
std::string RuleOf(const std::string*, const FieldInfo& info);
std::string RuleOf(const int*, const FieldInfo& info);
std::string RuleOf(const int64_t*, const FieldInfo& info);
std::string RuleOf(const std::optional<int64_t>*, const FieldInfo& info);
std::string RuleOf(const std::optional<double>*, const FieldInfo& info);
std::string RuleOf(const bool*, const FieldInfo& info);
std::string RuleOf(const RecordStatus*, const FieldInfo& info);
std::string RuleOf(const FailureClass*, const FieldInfo& info);
std::string RuleOf(const recipe::SpecMethod*, const FieldInfo& info);
std::string RuleOf(const std::vector<std::string>*, const FieldInfo& info);
std::string RuleOf(const std::optional<boost::json::object>*, const FieldInfo& info);
std::string RuleOf(const std::optional<metrics::Headline>*, const FieldInfo& info);
std::string RuleOf(const std::vector<metrics::Headline>*, const FieldInfo& info);
std::string RuleOf(const std::vector<TaskAccuracy>*, const FieldInfo& info);
std::string RuleOf(const RoleMetrics*, const FieldInfo& info);

// Writing: the value as JSON.
boost::json::value Write(const std::string& v);
boost::json::value Write(int v);
boost::json::value Write(int64_t v);
boost::json::value Write(const std::optional<int64_t>& v);
boost::json::value Write(const std::optional<double>& v);
boost::json::value Write(bool v);
boost::json::value Write(RecordStatus v);
boost::json::value Write(const FailureClass& v);
boost::json::value Write(recipe::SpecMethod v);
boost::json::value Write(const std::vector<std::string>& v);
boost::json::value Write(const std::optional<boost::json::object>& v);
boost::json::value Write(const std::optional<metrics::Headline>& v);
boost::json::value Write(const std::vector<metrics::Headline>& v);
boost::json::value Write(const std::vector<TaskAccuracy>& v);
boost::json::value Write(const RoleMetrics& v);

// Reading a present, non-null value at `path` into `out`; a problem when it breaks
// the rule (out is then left as it was).
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          std::string& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info, int& out,
          Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info, int64_t& out,
          Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          std::optional<int64_t>& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          std::optional<double>& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info, bool& out,
          Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          RecordStatus& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          FailureClass& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          recipe::SpecMethod& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          std::vector<std::string>& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          std::optional<boost::json::object>& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          std::optional<metrics::Headline>& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          std::vector<metrics::Headline>& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          std::vector<TaskAccuracy>& out, Problems& problems);
void Read(const boost::json::value& v, const std::string& path, const FieldInfo& info,
          RoleMetrics& out, Problems& problems);

}  // namespace servebench::record::internal
