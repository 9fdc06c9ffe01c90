#include "recipe/canonical_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include "common/json_string.h"

namespace servebench::recipe {
namespace {

void WriteDouble(double d, std::string* out) {
  if (!std::isfinite(d)) {  // JSON has no NaN/Inf; null keeps the document valid
    *out += "null";
    return;
  }
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string_view s(buf, static_cast<size_t>(ptr - buf));
  *out += s;
  // Keep doubles recognisable as such (Python prints 1.0, not 1).
  if (s.find_first_of(".eEn") == std::string_view::npos) *out += ".0";
}

void Write(const boost::json::value& v, bool sorted, bool python, std::string* out) {
  switch (v.kind()) {
    case boost::json::kind::null:
      *out += "null";
      return;
    case boost::json::kind::bool_:
      *out += v.get_bool() ? "true" : "false";
      return;
    case boost::json::kind::int64:
      *out += std::to_string(v.get_int64());
      return;
    case boost::json::kind::uint64:
      *out += std::to_string(v.get_uint64());
      return;
    case boost::json::kind::double_:
      WriteDouble(v.get_double(), out);
      return;
    case boost::json::kind::string:
      AppendJsonString(out, v.get_string());
      return;
    case boost::json::kind::array: {
      out->push_back('[');
      bool first = true;
      for (const auto& item : v.get_array()) {
        if (!first) *out += python ? ", " : ",";
        first = false;
        Write(item, sorted, python, out);
      }
      out->push_back(']');
      return;
    }
    case boost::json::kind::object: {
      const auto& o = v.get_object();
      std::vector<const boost::json::key_value_pair*> entries;
      entries.reserve(o.size());
      for (const auto& kv : o) entries.push_back(&kv);
      if (sorted)
        std::sort(entries.begin(), entries.end(),
                  [](auto* a, auto* b) { return a->key() < b->key(); });
      out->push_back('{');
      bool first = true;
      for (const auto* kv : entries) {
        if (!first) *out += python ? ", " : ",";
        first = false;
        AppendJsonString(out, kv->key());
        *out += python ? ": " : ":";
        Write(kv->value(), sorted, python, out);
      }
      out->push_back('}');
      return;
    }
  }
}

}  // namespace

std::string CanonicalJson(const boost::json::value& value) {
  std::string out;
  Write(value, true, false, &out);
  return out;
}

std::string OrderedJson(const boost::json::value& value, bool python_style) {
  std::string out;
  Write(value, false, python_style, &out);
  return out;
}

}  // namespace servebench::recipe
