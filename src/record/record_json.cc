#include "record/record_json.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <set>

#include "record/exact_json.h"
#include "record/field_codec.h"
#include "record/migrate.h"
#include "record/record_fields.h"

namespace servebench::record {
namespace {

namespace json = boost::json;
using internal::FieldInfo;
using internal::Need;
using internal::Problems;

// Writes every field, in the visit order.
class Writer {
 public:
  explicit Writer(json::object& out) : out_(out) {}
  template <class T>
  void operator()(std::string_view key, const T& value, const FieldInfo&) {
    out_[key] = internal::Write(value);
  }
  template <class M, class Fn>
  void Object(std::string_view key, const M& member, const FieldInfo&, Fn visit) {
    json::object inner;
    Writer w(inner);
    visit(w, member);
    out_[key] = std::move(inner);
  }

 private:
  json::object& out_;
};

// Reads the fields of one JSON object (the record, or a nested object of it),
// collecting problems; fields newer than the record's schema version are unknown.
class Reader {
 public:
  Reader(const json::object& o, std::string prefix, int version, Problems& problems)
      : o_(o), prefix_(std::move(prefix)), version_(version), problems_(problems) {}

  template <class T>
  void operator()(std::string_view key, T& out, const FieldInfo& info) {
    if (info.since > version_) return;
    seen_.insert(key);
    const json::value* v = o_.if_contains(key);
    std::string path = prefix_ + std::string(key);
    if (v == nullptr || v->is_null()) {
      if (info.need == Need::kRequired)
        problems_.Add(path, "missing", internal::RuleOf(&out, info));
      return;
    }
    internal::Read(*v, path, info, out, problems_);
  }

  template <class M, class Fn>
  void Object(std::string_view key, M& member, const FieldInfo& info, Fn visit) {
    if (info.since > version_) return;
    seen_.insert(key);
    const json::value* v = o_.if_contains(key);
    std::string path = prefix_ + std::string(key);
    if (v == nullptr || v->is_null()) {
      if (info.need == Need::kRequired) problems_.Add(path, "missing", "an object");
      return;
    }
    if (!v->is_object()) {
      problems_.Add(path, "is " + internal::Described(*v),
                    info.need == Need::kRequired ? "an object" : "an object or null");
      return;
    }
    Reader inner(v->get_object(), path + ".", version_, problems_);
    visit(inner, member);
    inner.RefuseUnknown();
  }

  // A problem for every key of the object that no field read.
  void RefuseUnknown() {
    for (const auto& [key, value] : o_) {
      if (seen_.count(key) > 0) continue;
      problems_.Add(prefix_ + std::string(key), "unknown field",
                    fmt::format("not part of schema version {} (record/README.md lists the "
                                "fields)",
                                version_));
    }
  }

  void Seen(std::string_view key) { seen_.insert(key); }

 private:
  const json::object& o_;
  std::string prefix_;
  int version_;
  Problems& problems_;
  std::set<std::string_view> seen_;
};

// The schema version of `json`, or 0 with a problem.
int VersionOf(const json::object& json, Problems& problems) {
  const std::string rule = fmt::format(
      "an integer 1..{} (records from a newer servebench need a newer servebench)", kSchemaVersion);
  const json::value* v = json.if_contains("schema_version");
  if (v == nullptr || v->is_null()) {
    problems.Add("schema_version", "missing", rule);
    return 0;
  }
  if (!v->is_int64() || v->get_int64() < 1 || v->get_int64() > kSchemaVersion) {
    problems.Add("schema_version", "= " + json::serialize(*v), rule);
    return 0;
  }
  return static_cast<int>(v->get_int64());
}

}  // namespace

json::object ToJson(const Record& record) {
  json::object out;
  out["schema_version"] = kSchemaVersion;
  Writer w(out);
  internal::VisitRecord(w, record);
  return out;
}

std::string ToJsonText(const Record& record) { return json::serialize(ToJson(record)); }

StatusOr<Record> FromJson(const json::object& json) {
  Problems problems;
  int version = VersionOf(json, problems);
  Record record;
  // A record of no known version is still read as the newest, so that every other
  // problem is reported with it.
  Reader reader(json, "", version == 0 ? kSchemaVersion : version, problems);
  reader.Seen("schema_version");
  internal::VisitRecord(reader, record);
  reader.RefuseUnknown();
  if (!problems.empty()) return Status::InvalidArgument(problems.Join());
  if (version == 1) internal::MigrateFromV1(&record);
  return record;
}

StatusOr<Record> FromJsonText(std::string_view text) {
  StatusOr<json::value> v = ParseJsonExactly(text);
  if (!v.ok()) {
    return Status::InvalidArgument(
        fmt::format("not valid JSON ({}); a record is one JSON object", v.status().message()));
  }
  if (!v->is_object()) {
    return Status::InvalidArgument("the JSON is not an object; a record is one JSON object");
  }
  return FromJson(v->get_object());
}

}  // namespace servebench::record
