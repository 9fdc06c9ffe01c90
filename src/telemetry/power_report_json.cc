// PowerReport as JSON and as a terminal line. Key names and units are reference
// power.md §3.1's; docs/power.md lists them.
#include <fmt/format.h>

#include "telemetry/power_report.h"

namespace servebench::telemetry {
namespace {

namespace json = boost::json;

json::value Num(const std::optional<double>& v) {
  if (!v) return nullptr;
  return *v;
}

json::array Strings(const std::vector<std::string>& items) {
  json::array a;
  for (const std::string& s : items) a.emplace_back(s);
  return a;
}

template <typename V>
json::object PerGpu(const std::map<std::string, V>& m) {
  json::object o;
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

json::value AccumulatorJson(const std::optional<AccumulatorCheck>& a) {
  if (!a) return nullptr;
  if (!a->available) return json::object{{"available", false}, {"reason", a->reason}};
  return json::object{{"available", true},
                      {"accumulator_delta_j", a->accumulator_delta_j},
                      {"integrated_stream_j", a->integrated_stream_j},
                      {"relative_error", Num(a->relative_error)},
                      {"within_tolerance", a->within_tolerance},
                      {"tolerance", a->tolerance},
                      {"per_gpu_delta_j", PerGpu(a->per_gpu_delta_j)},
                      {"integrated_gpu_ids", Strings(a->integrated_gpus)},
                      {"unmatched_gpus", Strings(a->unmatched_gpus)},
                      {"negative_delta_gpus", Strings(a->negative_delta_gpus)},
                      {"stream_span_s", a->stream_span_s}};
}

}  // namespace

json::object PowerReportJson(const PowerReport& r) {
  json::object o;
  o["power_metric_schema_version"] = 2;
  o["power_valid"] = r.valid() ? 1 : 0;
  o["power_invalid_reasons"] = Strings(r.validity.reason_codes());
  o["power_warnings"] = Strings(r.validity.warning_codes());
  json::array details;
  for (const metrics::ValidityIssue& i : r.validity.issues) {
    details.push_back(json::object{{"code", i.code}, {"detail", i.detail}, {"warning", i.warning}});
  }
  o["power_issues"] = std::move(details);
  o["power_source"] = r.source.source.empty() ? json::value(nullptr) : json::value(r.source.source);
  o["power_field"] = r.source.field.empty() ? json::value(nullptr) : json::value(r.source.field);
  o["power_source_where"] = r.source.where;
  o["power_sensor_avg_s"] = Num(r.source.sensor_avg_s);
  o["power_sample_period_s"] =
      r.source.source.empty() ? json::value(nullptr) : json::value(r.source.period_s);
  o["power_time_scale"] = r.source.time_scale;
  o["power_window_start_unix"] = Num(r.window_start_unix);
  o["power_window_end_unix"] = Num(r.window_end_unix);
  o["power_window_s"] = r.window_s;
  o["gpu_count_expected"] = r.gpu_count_expected;
  o["gpu_count_observed"] = r.gpu_count_observed;
  o["gpu_uuids"] = Strings(r.gpu_uuids);
  o["power_samples_min"] = r.samples_min ? json::value(*r.samples_min) : json::value(nullptr);
  o["power_max_gap_s"] = Num(r.max_gap_s);
  o["total_gpu_energy_j"] = Num(r.total_gpu_energy_j);
  o["avg_total_gpu_power_w"] = Num(r.avg_total_gpu_power_w);
  o["avg_power_w"] = Num(r.avg_power_w);
  o["peak_power_w"] = Num(r.peak_power_w);
  o["p90_total_gpu_power_w"] = Num(r.p90_total_gpu_power_w);
  auto work = [&](double EnergyPerWork::*field) -> json::value {
    if (!r.per_work) return nullptr;
    return (*r.per_work).*field;
  };
  o["joules_per_output_token"] = work(&EnergyPerWork::joules_per_output_token);
  o["joules_per_input_token"] = work(&EnergyPerWork::joules_per_input_token);
  o["joules_per_total_token"] = work(&EnergyPerWork::joules_per_total_token);
  o["joules_per_successful_query"] = work(&EnergyPerWork::joules_per_successful_query);
  o["output_tokens_per_joule"] = Num(r.output_tokens_per_joule);
  o["total_tokens_per_joule"] = Num(r.total_tokens_per_joule);
  o["energy_counter_j"] = Num(r.energy_counter_j);
  o["energy_counter_rel_err"] = Num(r.energy_counter_rel_err);
  o["energy_counter_span"] =
      r.energy_counter_span.empty() ? json::value(nullptr) : json::value(r.energy_counter_span);
  o["idle_power_w"] = Num(r.idle_power_w);
  o["power_limit_w"] = Num(r.power_limit_w);
  o["avg_sm_clock_mhz"] = Num(r.avg_sm_clock_mhz);
  o["avg_temp_c"] = Num(r.avg_temp_c);
  o["peak_temp_c"] = Num(r.peak_temp_c);
  o["avg_util_pct"] = Num(r.avg_util_pct);
  o["avg_mem_used_mib"] = Num(r.avg_mem_used_mib);
  o["prefill_gpu_energy_j"] = Num(r.prefill_gpu_energy_j);
  o["decode_gpu_energy_j"] = Num(r.decode_gpu_energy_j);
  o["prefill_avg_power_w"] = Num(r.prefill_avg_power_w);
  o["decode_avg_power_w"] = Num(r.decode_avg_power_w);
  o["prefill_joules_per_input_token"] = Num(r.prefill_joules_per_input_token);
  o["decode_joules_per_output_token"] = Num(r.decode_joules_per_output_token);
  const Integration& ix = r.integration;
  o["integration_method"] = "per_device_trapezoidal_with_linear_boundary_interpolation";
  o["per_gpu_sample_counts"] = PerGpu(ix.sample_counts);
  o["per_gpu_max_sample_gap_s"] = PerGpu(ix.max_gap_s);
  o["per_gpu_energy_j"] = r.valid() ? json::value(PerGpu(ix.energy_j)) : json::value(nullptr);
  json::object issues;
  for (const auto& [gpu, list] : ix.device_issues) issues[gpu] = Strings(list);
  o["device_issues"] = std::move(issues);
  o["boundary_degenerate_rows"] = PerGpu(ix.boundary_degenerate_rows);
  o["accumulator_check"] = AccumulatorJson(r.accumulator_check);
  o["power_notes"] = Strings(r.notes);
  return o;
}

void AddInferenceXPowerKeys(const PowerReport& r, json::object* out) {
  (*out)["power_metric_schema_version"] = 2;
  (*out)["power_valid"] = r.valid() ? 1 : 0;
  if (!r.valid() || !r.per_work || !r.total_gpu_energy_j) return;
  auto put = [&](const char* key, double v) { (*out)[key] = RoundLikeInferenceX(key, v); };
  put("avg_power_w", *r.avg_power_w);
  put("avg_total_gpu_power_w", *r.avg_total_gpu_power_w);
  put("total_gpu_energy_j", *r.total_gpu_energy_j);
  put("joules_per_successful_query", r.per_work->joules_per_successful_query);
  put("joules_per_input_token", r.per_work->joules_per_input_token);
  put("joules_per_output_token", r.per_work->joules_per_output_token);
  put("joules_per_total_token", r.per_work->joules_per_total_token);
}

std::string FormatPowerLine(const PowerReport& r) {
  if (!r.valid()) {
    std::string why;
    for (const metrics::ValidityIssue& i : r.validity.issues) {
      if (i.warning) continue;
      why += (why.empty() ? "" : "; ") + i.code + ": " + i.detail;
    }
    return "power: invalid (" + why + ")";
  }
  std::string line = fmt::format(
      "power: {:.1f} W total over {} GPU{} ({:.1f} W per GPU), {:.1f} J, {:.4f} J/output token, "
      "{:.3f} output tokens/J [{} {}]",
      r.avg_total_gpu_power_w.value_or(0), r.gpu_count_observed,
      r.gpu_count_observed == 1 ? "" : "s", r.avg_power_w.value_or(0),
      r.total_gpu_energy_j.value_or(0), r.per_work ? r.per_work->joules_per_output_token : 0.0,
      r.output_tokens_per_joule.value_or(0), r.source.source, r.source.field);
  for (const std::string& w : r.validity.warning_codes()) line += "; warning " + w;
  return line;
}

}  // namespace servebench::telemetry
