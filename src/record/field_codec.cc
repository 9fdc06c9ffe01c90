#include "record/field_codec.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cmath>
#include <set>

namespace servebench::record::internal {
namespace {

namespace json = boost::json;

constexpr size_t kMaxIdBytes = 256;
constexpr std::string_view kUtcRule =
    "a UTC date 2026-11-29 or time 2026-11-29T20:30:00Z (fraction allowed, no offset)";
constexpr std::string_view kIdRule = "a non-empty string of [A-Za-z0-9._-], at most 256 bytes";

// A short rendering of a bad value (long strings are cut).
std::string Shown(const json::value& v) {
  std::string s = json::serialize(v);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

void Bad(const json::value& v, const std::string& path, const std::string& rule,
         Problems& problems) {
  problems.Add(path, "is " + Described(v), rule);
}

bool IsIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool IsId(std::string_view s) {
  bool good = !s.empty() && s.size() <= kMaxIdBytes && s != "." && s != "..";
  for (char c : s) good = good && IsIdChar(c);
  return good;
}

bool Digits(std::string_view s, size_t from, size_t count) {
  if (s.size() < from + count) return false;
  for (size_t i = from; i < from + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// UTC only, so that text order is time order (the store compares times as text; an
// offset like +02:00 would sort wrongly).
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

std::optional<int64_t> Integer(const json::value& v) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64() && v.get_uint64() <= uint64_t{INT64_MAX})
    return static_cast<int64_t>(v.get_uint64());
  return std::nullopt;
}

constexpr recipe::SpecMethod kSpecMethods[] = {
    recipe::SpecMethod::kNone,   recipe::SpecMethod::kMtp,        recipe::SpecMethod::kEagle,
    recipe::SpecMethod::kEagle3, recipe::SpecMethod::kDraftModel, recipe::SpecMethod::kNgram};

// ---- Headline ----

json::value Number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json::value(*v) : json::value(nullptr);
}

void ReadHeadline(const json::value& v, const std::string& path, metrics::Headline& out,
                  Problems& problems) {
  if (!v.is_object()) return Bad(v, path, "an object of headline metrics", problems);
  const json::object& o = v.get_object();
  metrics::Headline h;
  std::set<std::string_view> known = {"completed", "failed"};
  for (auto [key, field] : {std::pair{"completed", &metrics::Headline::completed},
                            std::pair{"failed", &metrics::Headline::failed}}) {
    if (const json::value* n = o.if_contains(key); n != nullptr && !n->is_null()) {
      std::optional<int64_t> i = Integer(*n);
      if (!i || *i < 0) {
        Bad(*n, path + "." + key, "a non-negative integer", problems);
      } else {
        h.*field = *i;
      }
    }
  }
  for (const metrics::HeadlineMetric& m : metrics::HeadlineMetrics()) {
    known.insert(m.name);
    const json::value* n = o.if_contains(m.name);
    if (n == nullptr || n->is_null()) continue;
    if (!n->is_number() || !std::isfinite(n->to_number<double>())) {
      Bad(*n, path + "." + std::string(m.name), "a number or null", problems);
      continue;
    }
    h.*m.field = n->to_number<double>();
  }
  for (const auto& [key, ignored] : o) {
    if (known.count(key) == 0) {
      problems.Add(path + "." + std::string(key), "unknown field",
                   "a headline metric of metrics/headline.h");
    }
  }
  out = std::move(h);
}

json::object AccuracyToJson(const TaskAccuracy& a) {
  json::object items;
  for (const auto& [id, correct] : a.items) items[id] = correct;
  return {{"task", a.task},
          {"value", a.value},
          {"n", a.n},
          {"floor", a.floor ? json::value(*a.floor) : json::value(nullptr)},
          {"items", std::move(items)}};
}

void ReadAccuracy(const json::value& v, const std::string& path, TaskAccuracy& out,
                  Problems& problems) {
  if (!v.is_object()) return Bad(v, path, "an object {task, value, n, floor, items}", problems);
  const json::object& o = v.get_object();
  TaskAccuracy a;
  for (const auto& [key, value] : o) {
    std::string at = path + "." + std::string(key);
    if (key == "task") {
      if (!value.is_string() || value.get_string().empty()) {
        Bad(value, at, "a non-empty string", problems);
      } else {
        a.task = std::string(value.get_string());
      }
    } else if (key == "value" || key == "floor") {
      if (value.is_null() && key == "floor") continue;
      if (!value.is_number()) {
        Bad(value, at, key == "floor" ? "a number or null" : "a number", problems);
      } else if (key == "value") {
        a.value = value.to_number<double>();
      } else {
        a.floor = value.to_number<double>();
      }
    } else if (key == "n") {
      std::optional<int64_t> n = Integer(value);
      if (!n || *n < 0) {
        Bad(value, at, "a non-negative integer", problems);
      } else {
        a.n = *n;
      }
    } else if (key == "items") {
      if (!value.is_object()) {
        Bad(value, at, "an object of doc id -> true/false", problems);
        continue;
      }
      for (const auto& [id, correct] : value.get_object()) {
        if (!correct.is_bool()) {
          Bad(correct, at + "." + std::string(id), "true or false", problems);
        } else {
          a.items[std::string(id)] = correct.get_bool();
        }
      }
    } else {
      problems.Add(at, "unknown field", "one of task, value, n, floor, items");
    }
  }
  if (!o.contains("task")) problems.Add(path + ".task", "missing", "a non-empty string");
  if (!o.contains("value")) problems.Add(path + ".value", "missing", "a number");
  out = std::move(a);
}

}  // namespace

void Problems::Add(std::string_view path, std::string_view what, std::string_view rule) {
  items_.push_back(fmt::format("{}: {}; {}", path, what, rule));
}

std::string Problems::Join() const { return fmt::format("{}", fmt::join(items_, "; and ")); }

std::string Described(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return fmt::format("a boolean ({})", Shown(v));
    case json::kind::int64:
    case json::kind::uint64:
      return fmt::format("an integer ({})", Shown(v));
    case json::kind::double_:
      return fmt::format("a number ({})", Shown(v));
    case json::kind::string:
      return fmt::format("a string ({})", Shown(v));
    case json::kind::array:
      return "an array";
    case json::kind::object:
      return "an object";
  }
  return "?";
}

// ---- Rules ----

std::string RuleOf(const std::string*, const FieldInfo& info) {
  if (info.rule == TextRule::kId) return std::string(kIdRule);
  if (info.rule == TextRule::kUtc) return std::string(kUtcRule);
  return info.need == Need::kRequired ? "a non-empty string" : "a string";
}
std::string RuleOf(const int*, const FieldInfo&) { return "a non-negative integer"; }
std::string RuleOf(const int64_t*, const FieldInfo&) { return "a non-negative integer"; }
std::string RuleOf(const std::optional<int64_t>*, const FieldInfo&) {
  return "a non-negative integer or null";
}
std::string RuleOf(const std::optional<double>*, const FieldInfo&) {
  return "a finite number >= 0 or null";
}
std::string RuleOf(const bool*, const FieldInfo&) { return "true or false"; }
std::string RuleOf(const RecordStatus*, const FieldInfo&) {
  return "one of ok, failed, invalid, blocked, skipped";
}
std::string RuleOf(const FailureClass*, const FieldInfo&) {
  return "\"\" or " + std::string(FailureClassGrammar());
}
std::string RuleOf(const recipe::SpecMethod*, const FieldInfo&) {
  std::string names;
  for (recipe::SpecMethod m : kSpecMethods) {
    names += (names.empty() ? "" : ", ") + std::string(recipe::SpecMethodName(m));
  }
  return "one of " + names;
}
std::string RuleOf(const std::vector<std::string>*, const FieldInfo&) {
  return "an array of strings";
}
std::string RuleOf(const std::optional<boost::json::object>*, const FieldInfo&) {
  return "an object or null";
}
std::string RuleOf(const std::optional<metrics::Headline>*, const FieldInfo&) {
  return "an object of headline metrics or null";
}
std::string RuleOf(const std::vector<metrics::Headline>*, const FieldInfo&) {
  return "an array of headline objects";
}
std::string RuleOf(const std::vector<TaskAccuracy>*, const FieldInfo&) {
  return "an array of {task, value, n, floor, items}";
}
std::string RuleOf(const RoleMetrics*, const FieldInfo&) {
  return "an object of role: {metric: number}";
}

// ---- Writing ----

json::value Write(const std::string& v) { return json::value(v); }
json::value Write(int v) { return json::value(static_cast<int64_t>(v)); }
json::value Write(int64_t v) { return json::value(v); }
json::value Write(const std::optional<int64_t>& v) {
  return v ? json::value(*v) : json::value(nullptr);
}
json::value Write(const std::optional<double>& v) { return Number(v); }
json::value Write(bool v) { return json::value(v); }
json::value Write(RecordStatus v) { return json::value(RecordStatusName(v)); }
json::value Write(const FailureClass& v) { return json::value(v.name()); }
json::value Write(recipe::SpecMethod v) { return json::value(recipe::SpecMethodName(v)); }
json::value Write(const std::vector<std::string>& v) {
  json::array a;
  for (const std::string& s : v) a.emplace_back(s);
  return a;
}
json::value Write(const std::optional<json::object>& v) {
  return v ? json::value(*v) : json::value(nullptr);
}
json::value Write(const std::optional<metrics::Headline>& v) {
  if (!v) return nullptr;
  json::object o{{"completed", v->completed}, {"failed", v->failed}};
  for (const metrics::HeadlineMetric& m : metrics::HeadlineMetrics()) {
    o[m.name] = Number((*v).*m.field);
  }
  return o;
}
json::value Write(const std::vector<metrics::Headline>& v) {
  json::array a;
  for (const metrics::Headline& h : v) a.push_back(Write(std::optional<metrics::Headline>(h)));
  return a;
}
json::value Write(const std::vector<TaskAccuracy>& v) {
  json::array a;
  for (const TaskAccuracy& t : v) a.push_back(AccuracyToJson(t));
  return a;
}

json::value Write(const RoleMetrics& v) {
  json::object o;
  for (const auto& [role, metrics] : v) {
    json::object m;
    for (const auto& [name, value] : metrics) m[name] = Number(value);
    o[role] = std::move(m);
  }
  return o;
}

// ---- Reading ----

void Read(const json::value& v, const std::string& path, const FieldInfo& info, std::string& out,
          Problems& problems) {
  if (!v.is_string()) return Bad(v, path, RuleOf(&out, info), problems);
  std::string_view s = v.get_string();
  if (info.need == Need::kRequired && s.empty()) {
    return problems.Add(path, "is empty", RuleOf(&out, info));
  }
  if (info.rule == TextRule::kId && !s.empty() && !IsId(s)) {
    return problems.Add(path, "= " + Shown(v), kIdRule);
  }
  if (info.rule == TextRule::kUtc && !s.empty() && !IsUtcDateOrTime(s)) {
    return problems.Add(path, "= " + Shown(v), kUtcRule);
  }
  out = std::string(s);
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info, int& out,
          Problems& problems) {
  std::optional<int64_t> i = Integer(v);
  if (!i || *i < 0 || *i > INT32_MAX) return Bad(v, path, RuleOf(&out, info), problems);
  out = static_cast<int>(*i);
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info, int64_t& out,
          Problems& problems) {
  std::optional<int64_t> i = Integer(v);
  if (!i || *i < 0) return Bad(v, path, RuleOf(&out, info), problems);
  out = *i;
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info,
          std::optional<int64_t>& out, Problems& problems) {
  std::optional<int64_t> i = Integer(v);
  if (!i || *i < 0) return Bad(v, path, RuleOf(&out, info), problems);
  out = *i;
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info,
          std::optional<double>& out, Problems& problems) {
  if (!v.is_number() || !std::isfinite(v.to_number<double>()) || v.to_number<double>() < 0)
    return Bad(v, path, RuleOf(&out, info), problems);
  out = v.to_number<double>();
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info, bool& out,
          Problems& problems) {
  if (!v.is_bool()) return Bad(v, path, RuleOf(&out, info), problems);
  out = v.get_bool();
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info, RecordStatus& out,
          Problems& problems) {
  std::optional<RecordStatus> s =
      v.is_string() ? RecordStatusFromName(v.get_string()) : std::nullopt;
  if (!s) return problems.Add(path, "= " + Shown(v), RuleOf(&out, info));
  out = *s;
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info, FailureClass& out,
          Problems& problems) {
  if (!v.is_string()) return Bad(v, path, RuleOf(&out, info), problems);
  StatusOr<FailureClass> c = FailureClass::Parse(v.get_string());
  if (!c.ok()) return problems.Add(path, "= " + Shown(v), RuleOf(&out, info));
  out = *c;
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info,
          recipe::SpecMethod& out, Problems& problems) {
  for (recipe::SpecMethod m : kSpecMethods) {
    if (v.is_string() && v.get_string() == recipe::SpecMethodName(m)) {
      out = m;
      return;
    }
  }
  problems.Add(path, "= " + Shown(v), RuleOf(&out, info));
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info,
          std::vector<std::string>& out, Problems& problems) {
  if (!v.is_array()) return Bad(v, path, RuleOf(&out, info), problems);
  std::vector<std::string> got;
  const json::array& a = v.get_array();
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) {
      Bad(a[i], fmt::format("{}[{}]", path, i), "a string", problems);
      continue;
    }
    got.emplace_back(a[i].get_string());
  }
  out = std::move(got);
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info,
          std::optional<json::object>& out, Problems& problems) {
  if (!v.is_object()) return Bad(v, path, RuleOf(&out, info), problems);
  out = v.get_object();
}

void Read(const json::value& v, const std::string& path, const FieldInfo&,
          std::optional<metrics::Headline>& out, Problems& problems) {
  metrics::Headline h;
  ReadHeadline(v, path, h, problems);
  out = std::move(h);
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info,
          std::vector<metrics::Headline>& out, Problems& problems) {
  if (!v.is_array()) return Bad(v, path, RuleOf(&out, info), problems);
  std::vector<metrics::Headline> got;
  const json::array& a = v.get_array();
  for (size_t i = 0; i < a.size(); ++i) {
    metrics::Headline h;
    ReadHeadline(a[i], fmt::format("{}[{}]", path, i), h, problems);
    got.push_back(std::move(h));
  }
  out = std::move(got);
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info,
          std::vector<TaskAccuracy>& out, Problems& problems) {
  if (!v.is_array()) return Bad(v, path, RuleOf(&out, info), problems);
  std::vector<TaskAccuracy> got;
  const json::array& a = v.get_array();
  for (size_t i = 0; i < a.size(); ++i) {
    TaskAccuracy t;
    ReadAccuracy(a[i], fmt::format("{}[{}]", path, i), t, problems);
    got.push_back(std::move(t));
  }
  out = std::move(got);
}

void Read(const json::value& v, const std::string& path, const FieldInfo& info, RoleMetrics& out,
          Problems& problems) {
  if (!v.is_object()) return Bad(v, path, RuleOf(&out, info), problems);
  RoleMetrics got;
  for (const auto& [role, metrics] : v.get_object()) {
    const std::string at = fmt::format("{}.{}", path, std::string_view(role));
    if (!metrics.is_object()) {
      Bad(metrics, at, "an object of metric: number", problems);
      continue;
    }
    auto& mine = got[std::string(role)];
    for (const auto& [name, value] : metrics.get_object()) {
      // null: a value that was not finite when written (Number above).
      if (value.is_null()) continue;
      if (!value.is_number()) {
        Bad(value, fmt::format("{}.{}", at, std::string_view(name)), "a number", problems);
        continue;
      }
      mine[std::string(name)] = value.to_number<double>();
    }
  }
  out = std::move(got);
}

}  // namespace servebench::record::internal
