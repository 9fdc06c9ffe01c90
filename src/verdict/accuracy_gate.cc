#include "verdict/accuracy_gate.h"

#include <fmt/format.h>

#include "verdict/robust_stats.h"

namespace servebench::verdict {

MetricVerdict JudgeAccuracy(const AccuracyResult& tonight, const AccuracyResult* last_good,
                            const VerdictSettings& s) {
  MetricVerdict v;
  v.metric = "accuracy:" + tonight.task;
  v.value = tonight.value;
  if (tonight.floor && tonight.value < *tonight.floor) {
    v.outcome = MetricOutcome::kRegression;
    v.confirmed_by = Confirmation::kFloor;
    v.baseline = *tonight.floor;
    v.rule = fmt::format("below the floor {:.4f}", *tonight.floor);
    if (last_good != nullptr) v.baseline = last_good->value;
    v.change_rel = v.worse_rel = tonight.value - v.baseline;
    return v;
  }
  if (last_good == nullptr) {
    v.outcome = MetricOutcome::kInsufficient;
    v.rule = "no earlier valid night for this task";
    return v;
  }
  v.baseline = last_good->value;
  v.baseline_nights = 1;
  // Accuracy changes are absolute (points of a fraction), not relative.
  double drop = last_good->value - tonight.value;
  double p = 1;
  Confirmation test = Confirmation::kTwoProportion;
  if (!tonight.items.empty() && !last_good->items.empty()) {
    long b = 0, c = 0, common = 0;  // b: base right, tonight wrong; c: the reverse
    for (const auto& [doc, right_now] : tonight.items) {
      auto it = last_good->items.find(doc);
      if (it == last_good->items.end()) continue;
      ++common;
      if (it->second && !right_now) ++b;
      if (!it->second && right_now) ++c;
    }
    if (common > 0) {
      drop = static_cast<double>(b - c) / static_cast<double>(common);
      p = McNemarExactP(b, c);
      test = Confirmation::kPairedTest;
      v.rule = fmt::format("McNemar b = {}, c = {}, N = {}, p = {:.3g}", b, c, common, p);
    }
  } else {
    p = TwoProportionP(tonight.value, tonight.n, last_good->value, last_good->n);
    v.rule = fmt::format("two-proportion n = {} vs {}, p = {:.3g}", tonight.n, last_good->n, p);
  }
  v.p_value = p;
  v.change_rel = v.worse_rel = -drop;
  v.threshold_rel = s.accuracy_min_drop;
  if (p < s.accuracy_max_p && drop >= s.accuracy_min_drop) {
    v.outcome = MetricOutcome::kRegression;
    v.confirmed_by = test;
  } else if (p < s.accuracy_max_p && -drop >= s.accuracy_min_drop) {
    v.outcome = MetricOutcome::kImprovement;
    v.confirmed_by = test;
  } else {
    v.outcome = MetricOutcome::kUnchanged;
  }
  return v;
}

}  // namespace servebench::verdict
