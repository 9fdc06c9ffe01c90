// servebench's power rules (reference power.md §3.2) over InferenceX's integration.
// Times are converted to the source's seconds with the window start as origin:
// t = (t_ns − start_ns) / 1e9 / time_scale, so the window is [0, window_s].
#include "telemetry/power_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "telemetry/power_stats.h"

namespace servebench::telemetry {
namespace {

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Adds `code` once; a second call appends its detail to the first.
void AddIssue(metrics::Validity* v, const std::string& code, const std::string& detail,
              bool warning = false) {
  for (metrics::ValidityIssue& i : v->issues) {
    if (i.code == code) {
      if (i.detail.find(detail) == std::string::npos) i.detail += "; " + detail;
      return;
    }
  }
  v->Add(code, detail, warning);
}

// InferenceX's codes become servebench's (power.md §3.2).
void MapIntegrationCodes(const Integration& ix, double gap_limit_s, metrics::Validity* v) {
  auto gpus_with = [&](const std::string& issue) {
    std::vector<std::string> out;
    for (const auto& [gpu, issues] : ix.device_issues) {
      if (std::find(issues.begin(), issues.end(), issue) != issues.end()) out.push_back(gpu);
    }
    return Join(out);
  };
  for (const std::string& code : ix.reasons) {
    if (code == "invalid_benchmark_window") {
      AddIssue(v, "power_window_too_short", "the measured window is empty");
    } else if (code == "invalid_timestamp_sample") {
      AddIssue(v, "power_invalid_sample", "a telemetry row has a timestamp that does not parse");
    } else if (code == "invalid_power_sample") {
      AddIssue(v, "power_invalid_sample",
               "a power reading inside the window or its gap band is N/A, negative or not finite");
    } else if (code == "gpu_identity_missing") {
      AddIssue(v, "power_invalid_sample", "a telemetry row names no GPU");
    } else if (code == "expected_gpu_count_mismatch") {
      AddIssue(v, "power_gpu_count_mismatch",
               fmt::format("{} GPUs have samples, {} expected", ix.observed_gpus.size(),
                           ix.expected_gpus.value_or(0)));
    } else if (code == "insufficient_power_samples") {
      AddIssue(v, "power_not_bracketed",
               "fewer than 2 samples on GPU " + gpus_with("insufficient_power_samples"));
    } else if (code == "benchmark_window_not_bracketed") {
      AddIssue(v, "power_not_bracketed",
               "no sample at or before the window start, or none at or after its end, on GPU " +
                   gpus_with("benchmark_window_not_bracketed"));
    } else if (code == "sampling_gap_exceeded") {
      double worst = 0;
      for (const auto& [gpu, gap] : ix.max_gap_s) worst = std::max(worst, gap);
      AddIssue(
          v, "power_gap_exceeded",
          fmt::format("a {:.3f} s gap between samples on GPU {} (limit {:.3f} s = {} periods)",
                      worst, gpus_with("sampling_gap_exceeded"), gap_limit_s, kGapLimitPeriods));
    } else if (code == "no_usable_power_samples") {
      AddIssue(v, "power_gpu_missing", "no usable power sample near the window");
    } else {
      AddIssue(v, "power_invalid_sample", "InferenceX rule: " + code);
    }
  }
}

}  // namespace

PowerReport ComputePowerReport(const PowerInputs& in) {
  PowerReport r;
  r.idle_power_w = in.idle_power_w;
  if (in.samples == nullptr) {
    std::string why = in.unavailable_note.empty() ? "no telemetry source" : in.unavailable_note;
    AddIssue(&r.validity, "power_source_unavailable", why);
    r.notes.push_back(why);
    return r;
  }
  const SampleSet& set = *in.samples;
  r.source = set.info;
  r.notes = set.notes;
  double scale = set.info.time_scale;
  if (!(scale > 0)) {
    AddIssue(&r.validity, "power_source_unavailable",
             "the source runs with time scale 0 (no waiting): its watts have no time base");
    return r;
  }
  double period = set.info.period_s;
  auto to_s = [&](int64_t t_ns) {
    return static_cast<double>(t_ns - in.window.start_ns) / 1e9 / scale;
  };
  r.window_s = to_s(in.window.end_ns);
  r.window_start_unix =
      static_cast<double>(in.anchor.UnixNsFromMonotonic(in.window.start_ns)) / 1e9;
  r.window_end_unix = static_cast<double>(in.anchor.UnixNsFromMonotonic(in.window.end_ns)) / 1e9;

  // The power set: the GPUs the source was asked for. Samples of any other GPU are
  // flagged (never counted, never silently dropped).
  std::set<std::string> selected;
  for (const GpuInfo& g : set.gpus) selected.insert(g.key);
  std::vector<PowerRow> rows;
  std::set<std::string> unexpected;
  for (const PowerSample& s : set.samples) {
    if (!selected.empty() && !selected.count(s.gpu)) {
      unexpected.insert(s.gpu);
      continue;
    }
    rows.push_back({to_s(s.t_ns), s.gpu, s.power_w});
  }
  if (!unexpected.empty()) {
    AddIssue(&r.validity, "power_gpu_unexpected",
             "samples from GPUs outside the point's set: " +
                 Join({unexpected.begin(), unexpected.end()}));
  }
  int expected = in.expected_gpus > 0 ? in.expected_gpus : static_cast<int>(selected.size());
  double gap_limit = kGapLimitPeriods * period;
  r.integration = IntegrateWindow(rows, 0.0, r.window_s,
                                  expected > 0 ? std::optional<int>(expected) : std::nullopt,
                                  gap_limit, static_cast<int>(set.bad_timestamps));
  const Integration& ix = r.integration;
  MapIntegrationCodes(ix, gap_limit, &r.validity);
  r.gpu_count_observed = static_cast<int>(ix.observed_gpus.size());
  r.gpu_count_expected = expected > 0 ? expected : r.gpu_count_observed;
  r.gpu_uuids = ix.observed_gpus;
  std::sort(r.gpu_uuids.begin(), r.gpu_uuids.end());
  std::vector<std::string> missing;
  for (const std::string& key : selected) {
    if (!ix.sample_counts.count(key)) missing.push_back(key);
  }
  if (!missing.empty()) {
    AddIssue(&r.validity, "power_gpu_missing", "no samples from GPU " + Join(missing));
  }
  if (expected > 0 && r.gpu_count_observed > 0 && r.gpu_count_observed != expected) {
    AddIssue(&r.validity, "power_gpu_count_mismatch",
             fmt::format("{} GPUs have samples, {} expected", r.gpu_count_observed, expected));
  }
  for (const auto& [gpu, gap] : ix.max_gap_s) r.max_gap_s = std::max(r.max_gap_s.value_or(0), gap);

  // Samples inside the window, per GPU.
  int need = static_cast<int>(std::ceil(kMinSamplesPerPeriod * r.window_s / period - 1e-9));
  std::map<std::string, std::set<double>> inside;
  for (const PowerRow& row : rows) {
    if (row.t_s >= 0 && row.t_s <= r.window_s && row.power_w) inside[row.gpu].insert(row.t_s);
  }
  std::vector<std::string> sparse;
  for (const std::string& gpu : ix.observed_gpus) {
    int n = static_cast<int>(inside[gpu].size());
    r.samples_min = std::min(r.samples_min.value_or(n), n);
    if (n < need) sparse.push_back(fmt::format("GPU {} has {}", gpu, n));
  }
  if (!sparse.empty()) {
    AddIssue(
        &r.validity, "power_too_few_samples",
        fmt::format("{} in the window, fewer than {} (half the {:.3f} s window / {:.3f} s period)",
                    Join(sparse), need, r.window_s, period));
  }
  double sensor = set.info.sensor_avg_s.value_or(0);
  double min_window = kMinWindowSensorPeriods * std::max(sensor, period);
  if (r.window_s < min_window) {
    AddIssue(&r.validity, "power_window_too_short",
             fmt::format("window {:.3f} s < {} × max(sensor averaging {:.3f} s, period {:.3f} s) = "
                         "{:.3f} s",
                         r.window_s, kMinWindowSensorPeriods, sensor, period, min_window));
  }
  if (in.window.duration_s > 0) {
    double tolerance = std::max(0.5, 0.01 * r.window_s);
    if (std::fabs(in.window.duration_s - r.window_s) > tolerance) {
      AddIssue(&r.validity, "power_clock_mismatch",
               fmt::format("duration {:.3f} s vs power window {:.3f} s (tolerance {:.3f} s)",
                           in.window.duration_s, r.window_s, tolerance));
    }
  }
  std::vector<std::string> mig;
  for (const GpuInfo& g : set.gpus) {
    if (g.mig_enabled.value_or(false)) mig.push_back(g.key);
    if (g.power_limit_w)
      r.power_limit_w = std::min(r.power_limit_w.value_or(*g.power_limit_w), *g.power_limit_w);
  }
  if (!mig.empty()) {
    AddIssue(&r.validity, "power_mig",
             "MIG is enabled on GPU " + Join(mig) + " (power is per physical GPU)");
  }
  if (in.work.completed <= 0 || in.work.input_tokens <= 0 || in.work.output_tokens <= 0) {
    AddIssue(&r.validity, "power_token_counts",
             fmt::format("completed {}, input tokens {}, output tokens {}: each must be > 0",
                         in.work.completed, in.work.input_tokens, in.work.output_tokens));
  }

  CounterCheck counter = CheckCounters(set, rows, ix, r.window_s, to_s);
  r.energy_counter_span = counter.span;
  r.accumulator_check = counter.accumulator;
  r.energy_counter_j = counter.energy_j;
  r.energy_counter_rel_err = counter.rel_err;
  if (counter.reset) {
    AddIssue(&r.validity, "power_counter_reset", counter.detail, /*warning=*/true);
  } else if (counter.rel_err && *counter.rel_err > kCounterTolerance) {
    AddIssue(&r.validity, "power_counter_mismatch",
             fmt::format("energy counter {:.3f} J vs integrated {:.3f} J (relative error {:.4f} > "
                         "{})",
                         counter.energy_j.value_or(0), counter.integral_j, *counter.rel_err,
                         kCounterTolerance),
             /*warning=*/true);
  }
  for (const std::string& note : counter.notes) r.notes.push_back(note);
  ContextStats context = ComputeContext(set, to_s, r.window_s);
  r.avg_sm_clock_mhz = context.avg_sm_clock_mhz;
  r.avg_temp_c = context.avg_temp_c;
  r.peak_temp_c = context.peak_temp_c;
  r.avg_util_pct = context.avg_util_pct;
  r.avg_mem_used_mib = context.avg_mem_used_mib;

  if (!r.valid() || !ix.total_energy_j) return r;
  double energy = *ix.total_energy_j;
  r.total_gpu_energy_j = energy;
  r.avg_total_gpu_power_w = ix.avg_total_power_w;
  r.avg_power_w = ix.avg_power_w;
  r.peak_power_w = PeakPower(rows, r.window_s);
  r.p90_total_gpu_power_w = TimeWeightedTotalPercentile(rows, ix.observed_gpus, r.window_s, 90);
  r.per_work = DivideEnergy(energy, in.work.completed, in.work.input_tokens, in.work.output_tokens);
  if (energy > 0) {
    r.output_tokens_per_joule = static_cast<double>(in.work.output_tokens) / energy;
    r.total_tokens_per_joule =
        static_cast<double>(in.work.input_tokens + in.work.output_tokens) / energy;
  }
  if (in.roles && !in.roles->prefill.empty() && !in.roles->decode.empty()) {
    auto role_energy = [&](const std::vector<std::string>& gpus) -> std::optional<double> {
      double j = 0;
      for (const std::string& g : gpus) {
        auto it = ix.energy_j.find(g);
        if (it == ix.energy_j.end()) return std::nullopt;
        j += it->second;
      }
      return j;
    };
    std::optional<double> p = role_energy(in.roles->prefill), d = role_energy(in.roles->decode);
    if (p && d) {
      r.prefill_gpu_energy_j = p;
      r.decode_gpu_energy_j = d;
      r.prefill_avg_power_w = *p / r.window_s / static_cast<double>(in.roles->prefill.size());
      r.decode_avg_power_w = *d / r.window_s / static_cast<double>(in.roles->decode.size());
      r.prefill_joules_per_input_token = *p / static_cast<double>(in.work.input_tokens);
      r.decode_joules_per_output_token = *d / static_cast<double>(in.work.output_tokens);
    } else {
      r.notes.push_back("a role GPU has no energy: no prefill/decode split");
    }
  }
  return r;
}

}  // namespace servebench::telemetry
