#include "store/record_columns.h"

#include <fmt/format.h>

#include <array>
#include <boost/json.hpp>
#include <cmath>
#include <string_view>

namespace servebench::store {
namespace {

constexpr size_t kMaxIdBytes = 256;

// Collects every problem so one message lists them all.
class Problems {
 public:
  void Add(std::string_view field, std::string_view what, std::string_view rule) {
    items_.push_back(fmt::format("{}: {}; {}", field, what, rule));
  }
  bool empty() const { return items_.empty(); }
  std::string Join() const { return fmt::format("{}", fmt::join(items_, "; and ")); }

 private:
  std::vector<std::string> items_;
};

std::string_view KindName(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "an integer";
    case boost::json::kind::double_:
      return "a number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "?";
}

// A short rendering of a bad value for messages (long strings are cut).
std::string Shown(const boost::json::value& v) {
  std::string s = boost::json::serialize(v);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

bool IsIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// record_id, run_id, point_id name files and URLs: a restricted alphabet.
void TakeId(const boost::json::object& o, std::string_view key, bool required, std::string* out,
            Problems* problems) {
  static constexpr std::string_view kRule =
      "a non-empty string of [A-Za-z0-9._-], at most 256 bytes";
  const boost::json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) {
    if (required) problems->Add(key, "missing", kRule);
    return;
  }
  if (!v->is_string()) {
    problems->Add(key, fmt::format("is {} ({})", KindName(*v), Shown(*v)), kRule);
    return;
  }
  std::string_view s = v->get_string();
  bool good = !s.empty() && s.size() <= kMaxIdBytes && s != "." && s != "..";
  for (char c : s) good = good && IsIdChar(c);
  if (!good) {
    problems->Add(key, fmt::format("= {}", Shown(*v)), kRule);
    return;
  }
  *out = std::string(s);
}

void TakeString(const boost::json::object& o, std::string_view key, std::string_view path,
                bool required, std::string* out, Problems* problems) {
  static constexpr std::string_view kRequired = "a non-empty string";
  static constexpr std::string_view kOptional = "a string or null";
  const boost::json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) {
    if (required) problems->Add(path, "missing", kRequired);
    return;
  }
  if (!v->is_string()) {
    problems->Add(path, fmt::format("is {} ({})", KindName(*v), Shown(*v)),
                  required ? kRequired : kOptional);
    return;
  }
  if (required && v->get_string().empty()) {
    problems->Add(path, "is empty", kRequired);
    return;
  }
  *out = std::string(v->get_string());
}

bool Digits(std::string_view s, size_t from, size_t count) {
  if (s.size() < from + count) return false;
  for (size_t i = from; i < from + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS[.fraction]Z": UTC only, so that text order
// is time order (the store compares times as text; an offset like +02:00 would sort
// wrongly).
bool IsUtcDateOrTime(std::string_view s) {
  if (!Digits(s, 0, 4) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2) || s[7] != '-' ||
      !Digits(s, 8, 2)) {
    return false;
  }
  if (s.size() == 10) return true;
  if (s.size() < 20 || s[10] != 'T' || !Digits(s, 11, 2) || s[13] != ':' || !Digits(s, 14, 2) ||
      s[16] != ':' || !Digits(s, 17, 2) || s.back() != 'Z') {
    return false;
  }
  std::string_view fraction = s.substr(19, s.size() - 20);
  return fraction.empty() ||
         (fraction.size() >= 2 && fraction[0] == '.' && Digits(fraction, 1, fraction.size() - 1));
}

// Checks a time field already taken into `value` (empty = absent).
void CheckTime(std::string_view path, const std::string& value, Problems* problems) {
  if (value.empty() || IsUtcDateOrTime(value)) return;
  problems->Add(path, fmt::format("= \"{}\"", value),
                "a UTC date 2026-11-29 or time 2026-11-29T20:30:00Z (fraction allowed, no offset)");
}

const boost::json::object* TakeObject(const boost::json::object& o, std::string_view key,
                                      bool required, Problems* problems) {
  const boost::json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) {
    if (required) problems->Add(key, "missing", "an object");
    return nullptr;
  }
  if (!v->is_object()) {
    problems->Add(key, fmt::format("is {} ({})", KindName(*v), Shown(*v)),
                  required ? "an object" : "an object or null");
    return nullptr;
  }
  return &v->get_object();
}

}  // namespace

bool IsRecordStatus(std::string_view status) {
  return status == "ok" || status == "failed" || status == "invalid" || status == "blocked" ||
         status == "skipped";
}

StatusOr<RecordColumns> ExtractRecordColumns(const boost::json::object& record) {
  Problems problems;
  RecordColumns c;

  const boost::json::value* version = record.if_contains("schema_version");
  if (version == nullptr) {
    problems.Add("schema_version", "missing", "the integer 1");
  } else if (!version->is_int64() || version->get_int64() != kRecordSchemaVersion) {
    problems.Add("schema_version", fmt::format("= {}", Shown(*version)),
                 "the integer 1 (records from a newer servebench need a newer servebench)");
  }
  TakeId(record, "record_id", true, &c.record_id, &problems);
  TakeId(record, "run_id", true, &c.run_id, &problems);
  TakeId(record, "point_id", true, &c.point_id, &problems);
  TakeId(record, "session_id", false, &c.session_id, &problems);
  TakeId(record, "series_id", false, &c.series_id, &problems);
  TakeString(record, "recipe", "recipe", true, &c.recipe, &problems);
  TakeString(record, "engine", "engine", true, &c.engine, &problems);
  TakeString(record, "model", "model", true, &c.model, &problems);
  TakeString(record, "hardware", "hardware", false, &c.hardware, &problems);
  TakeString(record, "precision", "precision", false, &c.precision, &problems);
  TakeString(record, "failure_class", "failure_class", false, &c.failure_class, &problems);

  static constexpr std::string_view kStatusRule = "one of ok, failed, invalid, blocked, skipped";
  const boost::json::value* status = record.if_contains("status");
  if (status == nullptr || status->is_null()) {
    problems.Add("status", "missing", kStatusRule);
  } else if (!status->is_string() || !IsRecordStatus(status->get_string())) {
    problems.Add("status", fmt::format("= {}", Shown(*status)), kStatusRule);
  } else {
    c.status = std::string(status->get_string());
  }

  if (const boost::json::value* v = record.if_contains("concurrency");
      v != nullptr && !v->is_null()) {
    if (v->is_int64() && v->get_int64() >= 0) {
      c.concurrency = v->get_int64();
    } else if (v->is_uint64() && v->get_uint64() <= uint64_t{INT64_MAX}) {
      c.concurrency = static_cast<int64_t>(v->get_uint64());
    } else {
      problems.Add("concurrency", fmt::format("= {}", Shown(*v)), "a non-negative integer or null");
    }
  }

  if (const boost::json::object* build = TakeObject(record, "build", false, &problems)) {
    TakeString(*build, "date", "build.date", false, &c.build_date, &problems);
    TakeString(*build, "commit", "build.commit", false, &c.build_commit, &problems);
    TakeString(*build, "image", "build.image", false, &c.build_image, &problems);
    CheckTime("build.date", c.build_date, &problems);
  }
  if (const boost::json::object* prov = TakeObject(record, "provenance", true, &problems)) {
    TakeString(*prov, "started_at", "provenance.started_at", true, &c.started_at, &problems);
    TakeString(*prov, "ended_at", "provenance.ended_at", false, &c.ended_at, &problems);
    CheckTime("provenance.started_at", c.started_at, &problems);
    CheckTime("provenance.ended_at", c.ended_at, &problems);
  }
  // Objects that readers walk into: a wrong type here would break them later.
  for (std::string_view key : {"point", "summary", "evals", "artifacts"}) {
    TakeObject(record, key, false, &problems);
  }

  if (!problems.empty()) return Status::InvalidArgument(problems.Join());
  return c;
}

bool JsonEquivalent(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.kind() == b.kind() || (!a.is_double() && !b.is_double())) return a == b;
    return a.to_number<double>() == b.to_number<double>();
  }
  if (a.kind() != b.kind()) return false;
  if (a.is_array()) {
    const auto& x = a.get_array();
    const auto& y = b.get_array();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!JsonEquivalent(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    const auto& x = a.get_object();
    const auto& y = b.get_object();
    if (x.size() != y.size()) return false;
    for (const auto& [key, value] : x) {
      const boost::json::value* other = y.if_contains(key);
      if (other == nullptr || !JsonEquivalent(value, *other)) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace servebench::store
