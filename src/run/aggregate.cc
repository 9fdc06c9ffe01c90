#include "run/aggregate.h"

#include <algorithm>

namespace servebench::run {

namespace json = boost::json;

namespace {
bool IsNumber(const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); }

// NumPy's median: the middle value, or the mean of the two middle values.
double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}
}  // namespace

json::object AggregateMedian(const std::vector<json::object>& runs) {
  json::object out = runs.front();
  for (auto& [key, value] : out) {
    if (!IsNumber(value)) continue;
    std::vector<double> values;
    bool all_integers = true;
    for (const auto& run : runs) {
      const json::value* v = run.if_contains(key);
      if (v == nullptr || !IsNumber(*v)) continue;
      all_integers = all_integers && !v->is_double();
      values.push_back(v->to_number<double>());
    }
    double m = Median(values);
    // Counts stay integers when the median is whole (odd repetitions always are).
    if (all_integers && m == static_cast<double>(static_cast<int64_t>(m))) {
      value = static_cast<int64_t>(m);
    } else {
      value = m;
    }
  }
  out["aggregation_method"] = "median";
  out["aggregated_repetitions"] = static_cast<int64_t>(runs.size());
  json::array raw;
  for (const auto& run : runs) raw.push_back(run);
  json::value& sb = out["servebench"];
  if (!sb.is_object()) sb = json::object{};
  sb.as_object()["repetitions"] = std::move(raw);
  return out;
}

}  // namespace servebench::run
