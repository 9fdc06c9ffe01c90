#include "record/record_export.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <functional>

#include "record/labels.h"
#include "record/record_json.h"

namespace servebench::record {
namespace {

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Shortest round-trip decimal ("1235.5"), not JSON's exponent form ("1.2355E3").
std::string Text(std::optional<double> v) { return v ? fmt::format("{}", *v) : ""; }
std::string Text(std::optional<int64_t> v) { return v ? std::to_string(*v) : ""; }
std::string Text(bool v) { return v ? "true" : "false"; }

struct Column {
  std::string name;
  std::function<std::string(const Record&)> text;
};

const std::vector<Column>& Columns() {
  static const std::vector<Column> kColumns = [] {
    std::vector<Column> c = {
        {"record_id", [](const Record& r) { return r.record_id; }},
        {"run_id", [](const Record& r) { return r.run_id; }},
        {"point_id", [](const Record& r) { return r.point_id; }},
        {"session_id", [](const Record& r) { return r.session_id; }},
        {"series_id", [](const Record& r) { return r.series_id; }},
        {"recipe", [](const Record& r) { return r.recipe; }},
        {"engine", [](const Record& r) { return r.engine; }},
        {"image", [](const Record& r) { return r.image; }},
        {"model", [](const Record& r) { return r.model; }},
        {"precision", [](const Record& r) { return r.precision; }},
        {"hardware", [](const Record& r) { return r.hardware; }},
        {"runner", [](const Record& r) { return r.runner; }},
        {"isl", [](const Record& r) { return Text(r.isl); }},
        {"osl", [](const Record& r) { return Text(r.osl); }},
        {"concurrency", [](const Record& r) { return Text(r.concurrency); }},
        {"config", [](const Record& r) { return ConfigLabel(r.deployment); }},
        {"tp", [](const Record& r) { return std::to_string(r.deployment.tp); }},
        {"ep", [](const Record& r) { return std::to_string(r.deployment.ep); }},
        {"dp_attn", [](const Record& r) { return Text(r.deployment.dp_attn); }},
        {"spec_method",
         [](const Record& r) {
           return std::string(recipe::SpecMethodName(r.deployment.spec_method));
         }},
        {"num_gpus", [](const Record& r) { return std::to_string(r.deployment.num_gpus); }},
        {"status", [](const Record& r) { return std::string(RecordStatusName(r.status)); }},
        {"failure_class", [](const Record& r) { return r.failure_class.name(); }},
        {"failure_reason", [](const Record& r) { return r.failure_reason; }},
        {"build.date", [](const Record& r) { return r.build.date; }},
        {"build.commit", [](const Record& r) { return r.build.commit; }},
        {"build.image", [](const Record& r) { return r.build.image; }},
        {"provenance.started_at", [](const Record& r) { return r.provenance.started_at; }},
        {"provenance.ended_at", [](const Record& r) { return r.provenance.ended_at; }},
        {"provenance.host", [](const Record& r) { return r.provenance.host; }},
        {"provenance.engine_version", [](const Record& r) { return r.provenance.engine_version; }},
        {"completed",
         [](const Record& r) {
           return r.headline ? std::to_string(r.headline->completed) : std::string();
         }},
        {"failed",
         [](const Record& r) {
           return r.headline ? std::to_string(r.headline->failed) : std::string();
         }},
    };
    for (const metrics::HeadlineMetric& m : metrics::HeadlineMetrics()) {
      auto field = m.field;
      c.push_back({std::string(m.name), [field](const Record& r) {
                     return r.headline ? Text((*r.headline).*field) : std::string();
                   }});
    }
    return c;
  }();
  return kColumns;
}

void Indent(std::string* out, int depth) { out->append(static_cast<size_t>(depth) * 2, ' '); }

void Pretty(const boost::json::value& value, int depth, std::string* out) {
  if (value.is_object() && !value.get_object().empty()) {
    *out += "{\n";
    bool first = true;
    for (const auto& [key, member] : value.get_object()) {
      if (!first) *out += ",\n";
      first = false;
      Indent(out, depth + 1);
      *out += boost::json::serialize(boost::json::string(key));
      *out += ": ";
      Pretty(member, depth + 1, out);
    }
    *out += "\n";
    Indent(out, depth);
    *out += "}";
  } else if (value.is_array() && !value.get_array().empty()) {
    *out += "[\n";
    bool first = true;
    for (const auto& element : value.get_array()) {
      if (!first) *out += ",\n";
      first = false;
      Indent(out, depth + 1);
      Pretty(element, depth + 1, out);
    }
    *out += "\n";
    Indent(out, depth);
    *out += "]";
  } else if (value.is_double()) {
    // Shortest round-trip decimal ("0.86"), not the serializer's "8.6E-1"; still a
    // double to a reader ("1000.0").
    std::string text = fmt::format("{}", value.get_double());
    if (text.find_first_of(".en") == std::string::npos) text += ".0";
    *out += text;
  } else {
    *out += boost::json::serialize(value);
  }
}

}  // namespace

const std::vector<std::string>& CsvColumns() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Column& c : Columns()) names.push_back(c.name);
    return names;
  }();
  return kNames;
}

std::string RecordsToCsv(const std::vector<Record>& records) {
  const std::vector<Column>& columns = Columns();
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + columns[i].name;
  out += "\n";
  for (const Record& r : records) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i) out += ",";
      out += CsvField(columns[i].text(r));
    }
    out += "\n";
  }
  return out;
}

std::string RecordsToJson(const std::vector<Record>& records) {
  if (records.empty()) return "[]\n";
  std::string out = "[\n";
  for (size_t i = 0; i < records.size(); ++i) {
    out += ToJsonText(records[i]);
    out += i + 1 < records.size() ? ",\n" : "\n";
  }
  return out + "]\n";
}

std::string IndentedJson(const boost::json::value& value) {
  std::string out;
  Pretty(value, 0, &out);
  return out + "\n";
}

}  // namespace servebench::record
