#include "verdict/nightly_gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "verdict/robust_stats.h"

namespace servebench::verdict {

std::string_view MetricOutcomeName(MetricOutcome outcome) {
  switch (outcome) {
    case MetricOutcome::kRegression:
      return "regression";
    case MetricOutcome::kImprovement:
      return "improvement";
    case MetricOutcome::kUnchanged:
      return "unchanged";
    case MetricOutcome::kInsufficient:
      return "insufficient";
  }
  return "?";
}

std::string_view ConfirmationName(Confirmation confirmation) {
  switch (confirmation) {
    case Confirmation::kNone:
      return "none";
    case Confirmation::kRerun:
      return "rerun";
    case Confirmation::kPersistence:
      return "persistence";
    case Confirmation::kTwoNight:
      return "two-night";
    case Confirmation::kWindow:
      return "window";
    case Confirmation::kFloor:
      return "floor";
    case Confirmation::kPairedTest:
      return "mcnemar";
    case Confirmation::kTwoProportion:
      return "two-proportion";
  }
  return "?";
}

namespace {

std::vector<double> Tail(const std::vector<double>& x, size_t from, size_t to, size_t last_n) {
  size_t start = to - std::min(last_n, to - from);
  return {x.begin() + static_cast<long>(start), x.begin() + static_cast<long>(to)};
}

// Tries every confirmation rule in one direction. `bad[j]` is window night j's
// change with the sign that makes the studied direction positive (worse for a
// regression, better for an improvement). Says which rule confirmed it, if any.
struct Direction {
  std::string rule;
  Confirmation confirmed_by = Confirmation::kNone;
  double p = -1;
  bool flagged_tonight = false;
  bool noise_by_rerun = false;
};

// Student t of mean(a) - mean(b) with pooled variance; 0 when undefined.
double PooledT(const std::vector<double>& a, const std::vector<double>& b) {
  double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  if (na < 2 || nb < 2) return 0;
  double sp2 = ((na - 1) * SampleVariance(a) + (nb - 1) * SampleVariance(b)) / (na + nb - 2);
  double se = std::sqrt(sp2 * (1 / na + 1 / nb));
  return se > 0 ? (Mean(a) - Mean(b)) / se : 0;
}

}  // namespace

MetricVerdict GateMetric(const MetricSpec& spec, const MetricSeries& series,
                         const VerdictSettings& s) {
  MetricVerdict v;
  v.metric = spec.name;
  v.counted = spec.counted;
  const std::vector<double>& x = series.values;
  size_t n = x.size();
  v.value = x.back();
  if (n < s.min_baseline_nights + 1) {
    v.outcome = MetricOutcome::kInsufficient;
    v.baseline_nights = n - 1;
    v.rule = fmt::format("{} earlier valid nights; judging starts with {}", n - 1,
                         s.min_baseline_nights);
    return v;
  }
  // The judged window shrinks for young series so the baseline keeps its minimum.
  size_t w = std::min(s.window_nights, n - s.min_baseline_nights);
  size_t pool_end = n - w;  // baseline/noise nights are [0, pool_end)
  std::vector<double> base = Tail(x, 0, pool_end, s.baseline_nights);
  double b = Median(base);
  v.baseline = b;
  v.baseline_nights = base.size();
  std::vector<double> noise_nights = Tail(x, 0, pool_end, s.noise_nights);
  double sigma = ResidualNoiseScale(RollingMedianResiduals(noise_nights, s.noise_rolling_width));
  v.noise_rel = std::max(s.noise_floor_rel, sigma);
  v.threshold_rel = std::max(spec.delta_min, spec.k * v.noise_rel);
  double sign = spec.better == Better::kHigher ? 1.0 : -1.0;
  if (b <= 0) {
    v.outcome = MetricOutcome::kInsufficient;
    v.rule = "baseline is not positive";
    return v;
  }
  v.change_rel = (v.value - b) / b;
  v.worse_rel = sign * v.change_rel;

  std::vector<double> d;  // window nights' signed change, tonight last
  for (size_t j = pool_end; j < n; ++j) d.push_back(sign * (x[j] - b) / b);

  auto judge = [&](double dir) -> Direction {
    Direction out;
    auto bad = [&](size_t j) { return -dir * d[j]; };
    size_t t = d.size() - 1;
    double thr = v.threshold_rel;
    out.flagged_tonight = bad(t) > thr;
    // (a) Same-night rerun: enough raw runs tonight to test against the baseline's.
    const std::vector<double>& raw_tonight =
        series.raw_runs.size() == n ? series.raw_runs[n - 1] : std::vector<double>{};
    if (out.flagged_tonight && raw_tonight.size() >= s.rerun_min_runs) {
      std::vector<double> raw_base;
      for (size_t j = pool_end - std::min<size_t>(3, pool_end); j < pool_end; ++j) {
        if (j < series.raw_runs.size()) {
          raw_base.insert(raw_base.end(), series.raw_runs[j].begin(), series.raw_runs[j].end());
        }
      }
      if (raw_base.size() >= 3) {
        double p = std::min(MannWhitneyP(raw_tonight, raw_base),
                            KolmogorovSmirnovP(raw_tonight, raw_base));
        out.p = p;
        if (p <= s.rerun_p_regression) {
          out.rule = fmt::format("rerun: {} runs vs {} baseline runs, p = {:.3g}",
                                 raw_tonight.size(), raw_base.size(), p);
          out.confirmed_by = Confirmation::kRerun;
        } else if (p > s.rerun_p_noise) {
          out.noise_by_rerun = true;
        }
        return out;
      }
    }
    // (b) Persistence: flagged tonight and on enough nights of the window.
    size_t flags = 0;
    for (size_t j = 0; j < d.size(); ++j) flags += bad(j) > thr ? 1 : 0;
    if (out.flagged_tonight && flags >= s.persistence_flags) {
      out.rule = fmt::format("persistence: flagged on {} of the last {} nights", flags, d.size());
      out.confirmed_by = Confirmation::kPersistence;
      return out;
    }
    // (c) Two-night mean: tonight and last night together.
    if (d.size() >= 2) {
      double mean2 = (bad(t) + bad(t - 1)) / 2;
      double thr2 = std::max(spec.delta_min, s.two_night_k * v.noise_rel / std::sqrt(2.0));
      if (mean2 > thr2 && bad(t) > s.two_night_tonight_fraction * spec.delta_min) {
        out.rule =
            fmt::format("two-night mean {:+.2f} % beyond {:.2f} %", -dir * 100 * mean2, 100 * thr2);
        out.confirmed_by = Confirmation::kTwoNight;
        return out;
      }
    }
    // (d) Window test: t of the window against the nights before it. Pooled
    // variance (Student t, df = n1 + n2 - 2): with 3 nights the Welch form has about
    // 2 degrees of freedom and fired on ~1 % of quiet nights in the Monte Carlo.
    if (d.size() == s.window_nights && pool_end >= s.window_compare_nights && bad(t) > 0) {
      std::vector<double> win(x.begin() + static_cast<long>(pool_end), x.end());
      std::vector<double> before = Tail(x, 0, pool_end, s.window_compare_nights);
      double t_stat = PooledT(win, before);
      double mean_before = Mean(before);
      double rel = mean_before > 0 ? sign * (Mean(win) - mean_before) / mean_before : 0;
      double min_rel = std::max(s.window_min_rel, s.window_min_fraction * spec.delta_min);
      if (-dir * sign * t_stat > s.window_t && -dir * rel >= min_rel) {
        out.rule = fmt::format("window: last {} nights vs {} before, t = {:.2f}, change {:+.2f} %",
                               win.size(), before.size(), t_stat, 100 * sign * rel);
        out.confirmed_by = Confirmation::kWindow;
      }
    }
    return out;
  };

  // The earliest window night from which every night moved beyond half the threshold.
  auto first_moved = [&](double dir) {
    size_t ago = 0;
    for (size_t j = d.size() - 1; j-- > 0;) {
      if (-dir * d[j] <= v.threshold_rel / 2) break;
      ago = d.size() - 1 - j;
    }
    return ago;
  };
  Direction worse = judge(+1);
  if (worse.confirmed_by != Confirmation::kNone) {
    v.outcome = MetricOutcome::kRegression;
    v.confirmed_by = worse.confirmed_by;
    v.rule = worse.rule;
    v.p_value = worse.p;
    v.first_moved_nights_ago = first_moved(+1);
    return v;
  }
  Direction better = judge(-1);
  if (better.confirmed_by != Confirmation::kNone) {
    v.outcome = MetricOutcome::kImprovement;
    v.confirmed_by = better.confirmed_by;
    v.rule = better.rule;
    v.p_value = better.p;
    v.first_moved_nights_ago = first_moved(-1);
    return v;
  }
  v.outcome = MetricOutcome::kUnchanged;
  if (worse.noise_by_rerun || better.noise_by_rerun) {
    v.rule = "flagged, rerun says noise";
  } else if (worse.flagged_tonight || better.flagged_tonight) {
    v.suspect = true;
    v.rule = "suspect: flagged tonight, not confirmed";
  }
  return v;
}

}  // namespace servebench::verdict
