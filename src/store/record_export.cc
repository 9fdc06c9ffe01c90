#include "store/record_export.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cmath>

namespace servebench::store {
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
    // For people: 0.01 and 0, not JSON's exponent forms 1E-2 and 0E0 (still valid JSON).
    double v = value.get_double();
    *out += std::isfinite(v) ? fmt::format("{}", v) : "null";
  } else {
    *out += boost::json::serialize(value);
  }
}

}  // namespace

const std::vector<std::string>& CsvColumns() {
  static const std::vector<std::string> kColumns = {"record_id",
                                                    "run_id",
                                                    "point_id",
                                                    "session_id",
                                                    "series_id",
                                                    "recipe",
                                                    "engine",
                                                    "image",
                                                    "model",
                                                    "precision",
                                                    "hardware",
                                                    "runner",
                                                    "isl",
                                                    "osl",
                                                    "concurrency",
                                                    "tp",
                                                    "ep",
                                                    "dp_attn",
                                                    "spec_method",
                                                    "num_gpus",
                                                    "status",
                                                    "failure_class",
                                                    "failure_reason",
                                                    "build.date",
                                                    "build.commit",
                                                    "build.image",
                                                    "provenance.started_at",
                                                    "provenance.ended_at",
                                                    "provenance.host",
                                                    "provenance.engine_version",
                                                    "summary.completed",
                                                    "summary.failed",
                                                    "summary.request_throughput",
                                                    "summary.output_throughput",
                                                    "summary.total_token_throughput",
                                                    "summary.median_ttft_ms",
                                                    "summary.p99_ttft_ms",
                                                    "summary.median_tpot_ms",
                                                    "summary.p99_tpot_ms",
                                                    "summary.median_itl_ms",
                                                    "summary.p99_itl_ms",
                                                    "summary.median_e2el_ms",
                                                    "summary.spec_decode_acceptance_length"};
  return kColumns;
}

std::string FieldText(const boost::json::object& record, std::string_view path) {
  const boost::json::object* object = &record;
  while (true) {
    size_t dot = path.find('.');
    const boost::json::value* v = object->if_contains(path.substr(0, dot));
    if (v == nullptr || v->is_null()) return "";
    if (dot == std::string_view::npos) {
      if (v->is_string()) return std::string(v->get_string());
      // Shortest round-trip decimal ("1235.5"), not JSON's exponent form ("1.2355E3").
      if (v->is_double()) return fmt::format("{}", v->get_double());
      return boost::json::serialize(*v);
    }
    if (!v->is_object()) return "";
    object = &v->get_object();
    path.remove_prefix(dot + 1);
  }
}

std::string RecordsToCsv(const std::vector<boost::json::object>& records) {
  std::string out;
  const auto& columns = CsvColumns();
  for (size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + columns[i];
  out += "\n";
  for (const auto& record : records) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i) out += ",";
      out += CsvField(FieldText(record, columns[i]));
    }
    out += "\n";
  }
  return out;
}

std::string RecordsToJson(const std::vector<boost::json::object>& records) {
  if (records.empty()) return "[]\n";
  std::string out = "[\n";
  for (size_t i = 0; i < records.size(); ++i) {
    out += boost::json::serialize(records[i]);
    out += i + 1 < records.size() ? ",\n" : "\n";
  }
  return out + "]\n";
}

std::string PrettyJson(const boost::json::value& value) {
  std::string out;
  Pretty(value, 0, &out);
  return out + "\n";
}

}  // namespace servebench::store
