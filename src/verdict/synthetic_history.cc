#include "verdict/synthetic_history.h"

#include <fmt/format.h>

#include <cmath>

#include "verdict/judge.h"
#include "verdict/robust_stats.h"

namespace servebench::verdict {
namespace {

// The metric and the rule that confirmed it ("tput_per_gpu persistence").
std::string RuleOf(const SeriesVerdict& v) {
  for (const MetricVerdict& m : v.metrics) {
    if (m.counted &&
        (m.outcome == MetricOutcome::kRegression || m.outcome == MetricOutcome::kImprovement)) {
      return m.metric + " " + std::string(ConfirmationName(m.confirmed_by));
    }
  }
  return "other";
}

// Box-Muller on the engine's raw 64-bit output.
double Gaussian(std::mt19937_64& rng) {
  constexpr double kScale = 1.0 / 18446744073709551616.0;  // 2^-64
  double u1 = (static_cast<double>(rng()) + 0.5) * kScale;
  double u2 = (static_cast<double>(rng()) + 0.5) * kScale;
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

}  // namespace

std::string SyntheticDate(size_t night) {
  // Days since 2026-01-01 to a civil date (Howard Hinnant's algorithm).
  long z = 20454 + static_cast<long>(night) + 719468;  // 2026-01-01 is day 20454
  long era = z / 146097;
  long doe = z - era * 146097;
  long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long y = yoe + era * 400;
  long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  long mp = (5 * doy + 2) / 153;
  long d = doy - (153 * mp + 2) / 5 + 1;
  long m = mp < 10 ? mp + 3 : mp - 9;
  return fmt::format("{:04}-{:02}-{:02}", y + (m <= 2 ? 1 : 0), m, d);
}

SeriesHistory MakeSyntheticSeries(const SyntheticSpec& spec, const std::string& series_id,
                                  std::mt19937_64& rng) {
  SeriesHistory h;
  h.series_id = series_id;
  h.label = series_id;
  double within = std::sqrt(
      std::max(0.0, spec.run_cv * spec.run_cv - spec.between_night_cv * spec.between_night_cv));
  for (size_t night = 0; night < spec.nights; ++night) {
    double speed = spec.step_night && night >= *spec.step_night ? 1 + spec.step_rel : 1;
    Observation o;
    o.build = {"sim:nightly-" + std::to_string(night), fmt::format("{:07x}", 0x1000 + night),
               SyntheticDate(night)};
    double night_speed = spec.between_night_cv * Gaussian(rng);
    double night_ttft = spec.between_night_cv * Gaussian(rng);
    for (size_t r = 0; r < spec.repetitions; ++r) {
      double out = 1000 * speed * (1 + night_speed + within * Gaussian(rng));
      o.raw_runs["output_tput_per_gpu"].push_back(out);
      o.raw_runs["tput_per_gpu"].push_back(2 * out);
      o.raw_runs["median_tpot_ms"].push_back(20000 / out);
      o.raw_runs["median_ttft_ms"].push_back(100 * (1 + night_ttft + within * Gaussian(rng)));
    }
    for (const auto& [k, v] : o.raw_runs) o.metrics[k] = Median(v);
    h.nights.push_back(std::move(o));
  }
  return h;
}

double DetectionStudy::DetectionRate() const {
  return step_series ? static_cast<double>(detected_within_two) / static_cast<double>(step_series)
                     : 0;
}
double DetectionStudy::FalseAlarmRate() const {
  return judged_series_nights
             ? static_cast<double>(false_regressions) / static_cast<double>(judged_series_nights)
             : 0;
}
double DetectionStudy::FalseImprovementRate() const {
  return judged_series_nights
             ? static_cast<double>(false_improvements) / static_cast<double>(judged_series_nights)
             : 0;
}

DetectionStudy RunDetectionStudy(uint64_t seed, size_t series, const SyntheticSpec& spec,
                                 const VerdictSettings& settings) {
  std::mt19937_64 rng(seed);
  DetectionStudy st;
  double nights_sum = 0;
  for (size_t i = 0; i < series; ++i) {
    SyntheticSpec step = spec;
    step.step_night = 12 + rng() % (spec.nights - 2 - 12 + 1);
    SeriesHistory h = MakeSyntheticSeries(step, fmt::format("step-{}", i), rng);
    ++st.step_series;
    for (size_t night = *step.step_night; night < *step.step_night + 2; ++night) {
      SeriesVerdict v = JudgeSeries(h, SyntheticDate(night), settings);
      if (v.verdict == Verdict::kRegression) {
        ++st.detected_within_two;
        ++st.detection_rules[RuleOf(v)];
        nights_sum += static_cast<double>(night - *step.step_night + 1);
        break;
      }
    }
  }
  st.mean_nights_to_detect =
      st.detected_within_two ? nights_sum / static_cast<double>(st.detected_within_two) : 0;
  for (size_t i = 0; i < series; ++i) {
    SyntheticSpec noise = spec;
    noise.step_night.reset();
    SeriesHistory h = MakeSyntheticSeries(noise, fmt::format("noise-{}", i), rng);
    ++st.noise_series;
    for (size_t night = 0; night < spec.nights; ++night) {
      SeriesVerdict v = JudgeSeries(h, SyntheticDate(night), settings);
      if (v.verdict == Verdict::kNew) continue;
      ++st.judged_series_nights;
      if (v.verdict == Verdict::kRegression) {
        ++st.false_regressions;
        ++st.false_alarm_rules[RuleOf(v)];
      }
      if (v.verdict == Verdict::kImprovement) ++st.false_improvements;
    }
  }
  return st;
}

}  // namespace servebench::verdict
