// The integration follows aggregate_power.py step by step (reference power.md
// §2.2); each step's comment names the rule it implements.
#include "telemetry/energy_rule.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace servebench::telemetry {
namespace {

void AddReason(std::vector<std::string>* reasons, const std::string& code) {
  if (std::find(reasons->begin(), reasons->end(), code) == reasons->end()) {
    reasons->push_back(code);
  }
}

bool AllDigits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// InferenceX's _gpu_sort_key: numeric ids first, in numeric order, then the rest.
bool GpuLess(const std::string& a, const std::string& b) {
  bool da = AllDigits(a), db = AllDigits(b);
  if (da != db) return da;
  if (da) {
    if (a.size() != b.size()) return a.size() < b.size();  // no leading zeros in practice
    return a < b;
  }
  return a < b;
}

using Series = TimeSeries;

// Linear interpolation at `t` between the bracketing samples; an exact hit
// (within 1e-9 s, as InferenceX) is used as it is. `s` brackets `t`.
double Interpolate(const Series& s, double t) {
  auto right =
      std::lower_bound(s.begin(), s.end(), t,
                       [](const std::pair<double, double>& p, double v) { return p.first < v; });
  if (right != s.end() && std::fabs(right->first - t) <= 1e-9) return right->second;
  auto left = right - 1;
  double fraction = (t - left->first) / (right->first - left->first);
  return left->second + fraction * (right->second - left->second);
}

double Trapezoid(const Series& s) {
  double j = 0;
  for (size_t i = 1; i < s.size(); ++i) {
    j += (s[i].first - s[i - 1].first) * (s[i - 1].second + s[i].second) / 2.0;
  }
  return j;
}

// (start, P_start), the samples strictly inside, (end, P_end); trapezoid rule.
double IntegrateDevice(const Series& s, double start, double end) {
  Series clipped;
  clipped.emplace_back(start, Interpolate(s, start));
  for (const auto& p : s) {
    if (p.first > start && p.first < end) clipped.push_back(p);
  }
  clipped.emplace_back(end, Interpolate(s, end));
  return Trapezoid(clipped);
}

}  // namespace

double InterpolateAt(const TimeSeries& s, double t) { return Interpolate(s, t); }
double WindowIntegral(const TimeSeries& s, double start, double end) {
  return IntegrateDevice(s, start, end);
}

Integration IntegrateWindow(const std::vector<PowerRow>& rows, double start_s, double end_s,
                            std::optional<int> expected_gpus, double max_gap_s,
                            int bad_timestamps) {
  Integration out;
  out.expected_gpus = expected_gpus;
  if (!std::isfinite(start_s) || !std::isfinite(end_s) || end_s <= start_s) {
    out.reasons = {"invalid_benchmark_window"};
    return out;
  }
  if (expected_gpus && *expected_gpus <= 0) AddReason(&out.reasons, "invalid_expected_gpu_count");
  if (!std::isfinite(max_gap_s) || max_gap_s <= 0) {
    out.reasons = {"invalid_max_sample_gap"};
    return out;
  }
  // An unparseable timestamp has no known position: it invalidates wherever it is.
  if (bad_timestamps > 0) AddReason(&out.reasons, "invalid_timestamp_sample");

  std::map<std::string, std::map<double, std::vector<double>>> raw;
  bool missing_identity = false;
  for (const PowerRow& row : rows) {
    if (!std::isfinite(row.t_s)) {
      AddReason(&out.reasons, "invalid_timestamp_sample");
      continue;
    }
    // Only the window and its possible bracketing neighbours matter.
    if (row.t_s < start_s - max_gap_s || row.t_s > end_s + max_gap_s) continue;
    bool outside = row.t_s < start_s || row.t_s > end_s;
    bool degenerate = !row.power_w || !std::isfinite(*row.power_w) || *row.power_w <= 0.0;
    if (degenerate && outside) {
      // Teardown rows (N/A or 0 W) outside the window are counted, never used.
      ++out.boundary_degenerate_rows[row.gpu.empty() ? "unknown" : row.gpu];
      continue;
    }
    if (!row.power_w || !std::isfinite(*row.power_w) || *row.power_w < 0) {
      AddReason(&out.reasons, "invalid_power_sample");
      continue;
    }
    if (row.gpu.empty()) {
      missing_identity = true;
      continue;
    }
    raw[row.gpu][row.t_s].push_back(*row.power_w);
  }
  if (missing_identity) AddReason(&out.reasons, "gpu_identity_missing");
  if (raw.empty()) {
    AddReason(&out.reasons, "no_usable_power_samples");
    return out;
  }
  for (const auto& [gpu, by_t] : raw) out.observed_gpus.push_back(gpu);
  std::sort(out.observed_gpus.begin(), out.observed_gpus.end(), GpuLess);
  if (expected_gpus && *expected_gpus > 0 &&
      static_cast<int>(out.observed_gpus.size()) != *expected_gpus) {
    AddReason(&out.reasons, "expected_gpu_count_mismatch");
  }

  for (const std::string& gpu : out.observed_gpus) {
    Series s;
    for (const auto& [t, values] : raw[gpu]) {
      double sum = 0;
      for (double v : values) sum += v;
      s.emplace_back(t, sum / static_cast<double>(values.size()));
    }
    out.sample_counts[gpu] = static_cast<int>(s.size());
    std::vector<std::string> issues;
    if (s.size() < 2) {
      issues.push_back("insufficient_power_samples");
    } else if (s.front().first > start_s || s.back().first < end_s) {
      issues.push_back("benchmark_window_not_bracketed");
    } else {
      // The bracketing sequence: last sample ≤ start through first sample ≥ end.
      auto cmp_t = [](const std::pair<double, double>& p, double v) { return p.first < v; };
      auto after_start = std::upper_bound(
          s.begin(), s.end(), start_s,
          [](double v, const std::pair<double, double>& p) { return v < p.first; });
      size_t left = static_cast<size_t>(after_start - s.begin()) - 1;
      size_t right =
          static_cast<size_t>(std::lower_bound(s.begin(), s.end(), end_s, cmp_t) - s.begin());
      double max_gap = 0;
      for (size_t i = left + 1; i <= right; ++i)
        max_gap = std::max(max_gap, s[i].first - s[i - 1].first);
      out.max_gap_s[gpu] = max_gap;
      if (max_gap > max_gap_s) issues.push_back("sampling_gap_exceeded");
      out.energy_j[gpu] = IntegrateDevice(s, start_s, end_s);
    }
    for (const std::string& issue : issues) AddReason(&out.reasons, issue);
    if (!issues.empty()) out.device_issues[gpu] = issues;
  }
  if (out.energy_j.size() == out.observed_gpus.size()) {
    double total = 0;
    for (const auto& [gpu, j] : out.energy_j) total += j;
    out.total_energy_j = total;
    out.avg_total_power_w = total / (end_s - start_s);
    out.avg_power_w = *out.avg_total_power_w / static_cast<double>(out.observed_gpus.size());
  }
  out.valid = out.reasons.empty();
  return out;
}

std::optional<EnergyPerWork> DivideEnergy(double energy_j, int64_t completed, int64_t input_tokens,
                                          int64_t output_tokens) {
  if (completed <= 0 || input_tokens <= 0 || output_tokens <= 0) return std::nullopt;
  EnergyPerWork e;
  e.joules_per_successful_query = energy_j / static_cast<double>(completed);
  e.joules_per_input_token = energy_j / static_cast<double>(input_tokens);
  e.joules_per_output_token = energy_j / static_cast<double>(output_tokens);
  e.joules_per_total_token = energy_j / static_cast<double>(input_tokens + output_tokens);
  return e;
}

double RoundLikeInferenceX(const std::string& key, double value) {
  bool coarse = key.size() >= 2 && (key.ends_with("_w") || key.ends_with("_j"));
  double scale = coarse ? 1e3 : 1e6;
  return std::nearbyint(value * scale) / scale;
}

AccumulatorCheck CrossCheckAccumulator(const std::map<std::string, double>& start_j,
                                       const std::map<std::string, double>& end_j,
                                       const std::vector<PowerRow>& stream) {
  AccumulatorCheck c;
  c.available = true;
  std::vector<std::string> matched;
  for (const auto& [gpu, j] : start_j) {
    if (end_j.count(gpu)) {
      matched.push_back(gpu);
    } else {
      c.unmatched_gpus.push_back(gpu);
    }
  }
  for (const auto& [gpu, j] : end_j) {
    if (!start_j.count(gpu)) c.unmatched_gpus.push_back(gpu);
  }
  std::sort(matched.begin(), matched.end(), GpuLess);
  std::sort(c.unmatched_gpus.begin(), c.unmatched_gpus.end(), GpuLess);
  for (const std::string& gpu : matched) {
    double delta = end_j.at(gpu) - start_j.at(gpu);
    c.per_gpu_delta_j[gpu] = delta;
    c.accumulator_delta_j += delta;
    if (delta < 0) c.negative_delta_gpus.push_back(gpu);
  }
  std::map<std::string, Series> by_gpu;
  for (const PowerRow& row : stream) {
    if (row.gpu.empty() || !row.power_w || !std::isfinite(row.t_s) ||
        !std::isfinite(*row.power_w)) {
      continue;
    }
    by_gpu[row.gpu].emplace_back(row.t_s, *row.power_w);
  }
  double lo = 0, hi = 0;
  bool any = false;
  for (const std::string& gpu : matched) {
    auto it = by_gpu.find(gpu);
    if (it == by_gpu.end()) continue;
    Series& s = it->second;
    std::stable_sort(s.begin(), s.end());
    c.integrated_gpus.push_back(gpu);
    c.integrated_stream_j += Trapezoid(s);
    lo = any ? std::min(lo, s.front().first) : s.front().first;
    hi = any ? std::max(hi, s.back().first) : s.back().first;
    any = true;
  }
  c.stream_span_s = any ? hi - lo : 0;
  if (c.accumulator_delta_j > 0) {
    c.relative_error =
        std::fabs(c.accumulator_delta_j - c.integrated_stream_j) / c.accumulator_delta_j;
    c.within_tolerance = c.negative_delta_gpus.empty() && *c.relative_error <= c.tolerance;
  }
  return c;
}

}  // namespace servebench::telemetry
