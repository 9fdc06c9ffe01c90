#include "telemetry/power_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace servebench::telemetry {
namespace {

bool Brackets(const TimeSeries& s, double start, double end) {
  return s.size() >= 2 && s.front().first <= start && s.back().first >= end;
}

// Readings of one GPU at one time are averaged, as the energy rule does.
TimeSeries Dedup(std::vector<std::pair<double, double>> points) {
  std::sort(points.begin(), points.end());
  TimeSeries out;
  size_t i = 0;
  while (i < points.size()) {
    size_t j = i;
    double sum = 0;
    while (j < points.size() && points[j].first == points[i].first) sum += points[j++].second;
    out.emplace_back(points[i].first, sum / static_cast<double>(j - i));
    i = j;
  }
  return out;
}

std::map<std::string, TimeSeries> PowerSeries(const std::vector<PowerRow>& rows) {
  std::map<std::string, std::vector<std::pair<double, double>>> raw;
  for (const PowerRow& r : rows) {
    if (r.power_w && std::isfinite(*r.power_w) && *r.power_w >= 0)
      raw[r.gpu].emplace_back(r.t_s, *r.power_w);
  }
  std::map<std::string, TimeSeries> out;
  for (auto& [gpu, pts] : raw) out[gpu] = Dedup(std::move(pts));
  return out;
}

}  // namespace

CounterCheck CheckCounters(const SampleSet& set, const std::vector<PowerRow>& rows,
                           const Integration& ix, double window_s, const ToSeconds& to_s) {
  CounterCheck c;
  if (set.counter_start && set.counter_end) {
    c.span = "sampler";
    AccumulatorCheck a =
        CrossCheckAccumulator(set.counter_start->energy_j, set.counter_end->energy_j, rows);
    c.integral_j = a.integrated_stream_j;
    if (!a.negative_delta_gpus.empty()) {
      c.reset = true;
      c.detail =
          "energy counter went backwards (reset or wrap) on GPU " + a.negative_delta_gpus.front();
    } else if (!a.integrated_gpus.empty()) {
      c.energy_j = a.accumulator_delta_j;
      c.rel_err = a.relative_error;
    }
    c.accumulator = a;
    return c;
  }
  std::map<std::string, std::vector<std::pair<double, double>>> raw;
  for (const PowerSample& s : set.samples) {
    if (s.energy_j && std::isfinite(*s.energy_j))
      raw[s.gpu].emplace_back(to_s(s.t_ns), *s.energy_j);
  }
  if (raw.empty()) return c;
  c.span = "window";
  double total = 0;
  for (const std::string& gpu : ix.observed_gpus) {
    auto it = raw.find(gpu);
    if (it == raw.end()) {
      c.notes.push_back("GPU " + gpu + " reports no energy counter: no counter cross-check");
      return c;
    }
    TimeSeries s = Dedup(std::move(it->second));
    if (!Brackets(s, 0, window_s)) {
      c.notes.push_back("GPU " + gpu + "'s counter readings do not bracket the window");
      return c;
    }
    for (size_t i = 1; i < s.size(); ++i) {
      if (s[i].second < s[i - 1].second) {
        c.reset = true;
        c.detail = fmt::format(
            "energy counter of GPU {} went backwards ({:.3f} J → {:.3f} J): reset "
            "or wrap",
            gpu, s[i - 1].second, s[i].second);
        return c;
      }
    }
    total += InterpolateAt(s, window_s) - InterpolateAt(s, 0);
  }
  c.energy_j = total;
  c.integral_j = ix.total_energy_j.value_or(0);
  if (total > 0 && ix.total_energy_j) c.rel_err = std::fabs(total - *ix.total_energy_j) / total;
  return c;
}

std::optional<double> PeakPower(const std::vector<PowerRow>& rows, double window_s) {
  std::optional<double> peak;
  for (const auto& [gpu, s] : PowerSeries(rows)) {
    if (!Brackets(s, 0, window_s)) continue;
    double p = std::max(InterpolateAt(s, 0), InterpolateAt(s, window_s));
    for (const auto& [t, w] : s) {
      if (t >= 0 && t <= window_s) p = std::max(p, w);
    }
    peak = std::max(peak.value_or(p), p);
  }
  return peak;
}

std::optional<double> TimeWeightedTotalPercentile(const std::vector<PowerRow>& rows,
                                                  const std::vector<std::string>& gpus,
                                                  double window_s, double p) {
  std::map<std::string, TimeSeries> series = PowerSeries(rows);
  std::set<double> grid = {0.0, window_s};
  for (const std::string& g : gpus) {
    auto it = series.find(g);
    if (it == series.end() || !Brackets(it->second, 0, window_s)) return std::nullopt;
    for (const auto& [t, w] : it->second) {
      if (t > 0 && t < window_s) grid.insert(t);
    }
  }
  std::vector<double> times(grid.begin(), grid.end());
  std::vector<double> sums;
  for (double t : times) {
    double sum = 0;
    for (const std::string& g : gpus) sum += InterpolateAt(series[g], t);
    sums.push_back(sum);
  }
  std::vector<std::pair<double, double>> weighted;  // (mean sum, length)
  for (size_t i = 1; i < times.size(); ++i) {
    weighted.emplace_back((sums[i - 1] + sums[i]) / 2, times[i] - times[i - 1]);
  }
  if (weighted.empty()) return std::nullopt;
  std::sort(weighted.begin(), weighted.end());
  double target = p / 100.0 * window_s, cum = 0;
  for (const auto& [value, length] : weighted) {
    cum += length;
    if (cum >= target - 1e-12) return value;
  }
  return weighted.back().first;
}

ContextStats ComputeContext(const SampleSet& set, const ToSeconds& to_s, double window_s) {
  using Field = std::optional<double> PowerSample::*;
  auto window_mean = [&](Field field) -> std::optional<double> {
    std::map<std::string, std::vector<std::pair<double, double>>> raw;
    for (const PowerSample& s : set.samples) {
      if (s.*field && std::isfinite(*(s.*field)))
        raw[s.gpu].emplace_back(to_s(s.t_ns), *(s.*field));
    }
    double sum = 0;
    int n = 0;
    for (auto& [gpu, pts] : raw) {
      TimeSeries s = Dedup(std::move(pts));
      if (!Brackets(s, 0, window_s) || window_s <= 0) continue;
      sum += WindowIntegral(s, 0, window_s) / window_s;
      ++n;
    }
    return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
  };
  ContextStats c;
  c.avg_sm_clock_mhz = window_mean(&PowerSample::sm_clock_mhz);
  c.avg_temp_c = window_mean(&PowerSample::temp_c);
  c.avg_util_pct = window_mean(&PowerSample::util_pct);
  c.avg_mem_used_mib = window_mean(&PowerSample::mem_used_mib);
  for (const PowerSample& s : set.samples) {
    double t = to_s(s.t_ns);
    if (s.temp_c && t >= 0 && t <= window_s)
      c.peak_temp_c = std::max(c.peak_temp_c.value_or(*s.temp_c), *s.temp_c);
  }
  return c;
}

}  // namespace servebench::telemetry
