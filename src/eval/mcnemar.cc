// McNemar's test for paired accuracy (shared reference evals.md §5, layer L2).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "eval/gates.h"

namespace servebench::eval {

PairedCounts PairCorrectness(const std::map<size_t, bool>& baseline,
                             const std::map<size_t, bool>& candidate) {
  PairedCounts counts;
  for (const auto& [doc_id, base_right] : baseline) {
    auto it = candidate.find(doc_id);
    if (it == candidate.end()) {
      ++counts.unpaired;
      continue;
    }
    ++counts.n;
    if (base_right && !it->second) ++counts.b;
    if (!base_right && it->second) ++counts.c;
  }
  for (const auto& [doc_id, right] : candidate) {
    if (!baseline.contains(doc_id)) ++counts.unpaired;
  }
  return counts;
}

double McNemarExactP(size_t b, size_t c) {
  size_t m = b + c;
  if (m == 0) return 1.0;
  size_t k = std::min(b, c);
  // P[X <= k] summed in log space: C(m, i) / 2^m underflows a double past m ~ 1000.
  double cdf = 0;
  const double log_half_m = static_cast<double>(m) * std::log(0.5);
  for (size_t i = 0; i <= k; ++i) {
    double log_choose = std::lgamma(static_cast<double>(m) + 1) -
                        std::lgamma(static_cast<double>(i) + 1) -
                        std::lgamma(static_cast<double>(m - i) + 1);
    cdf += std::exp(log_choose + log_half_m);
  }
  return std::min(1.0, 2 * cdf);
}

McNemarReport McNemarGate(const PairedCounts& counts, double alpha, double max_drop_points) {
  McNemarReport report;
  report.counts = counts;
  report.alpha = alpha;
  report.max_drop_points = max_drop_points;
  if (counts.n == 0) {
    report.verdict = Verdict::kInvalid;
    report.reason = "no document was scored in both runs; nothing to compare";
    return report;
  }
  double b = static_cast<double>(counts.b);
  double c = static_cast<double>(counts.c);
  report.drop_points = 100.0 * (b - c) / static_cast<double>(counts.n);
  report.p_value = McNemarExactP(counts.b, counts.c);
  if (counts.b + counts.c > 0) {
    double d = std::max(0.0, std::abs(b - c) - 1);
    report.chi2 = d * d / (b + c);
    report.chi2_p_value = std::erfc(std::sqrt(report.chi2 / 2));
  }
  bool significant_drop = counts.b > counts.c && report.p_value < alpha;
  bool large_drop = report.drop_points > max_drop_points;
  if (significant_drop || large_drop) {
    report.verdict = Verdict::kFail;
    report.reason =
        significant_drop
            ? fmt::format("candidate is worse: b = {} > c = {}, exact p = {:.4g} < alpha = {}",
                          counts.b, counts.c, report.p_value, alpha)
            : fmt::format("drop of {:.2f} points exceeds the allowed {:.2f}", report.drop_points,
                          max_drop_points);
  } else {
    report.verdict = Verdict::kPass;
    report.reason = fmt::format(
        "no significant drop: b = {}, c = {}, exact p = {:.4g}, drop "
        "{:.2f} points",
        counts.b, counts.c, report.p_value, report.drop_points);
  }
  return report;
}

namespace {
std::string TaskHash(const boost::json::object& results, std::string_view task) {
  const boost::json::value* hashes = results.if_contains("task_hashes");
  if (hashes == nullptr || !hashes->is_object()) return "";
  const boost::json::value* hash = hashes->as_object().if_contains(task);
  return hash != nullptr && hash->is_string() ? std::string(hash->as_string()) : "";
}
}  // namespace

ProtocolReport ProtocolGate(const boost::json::object& baseline_results,
                            const boost::json::object& candidate_results, std::string_view task) {
  ProtocolReport report;
  report.baseline_hash = TaskHash(baseline_results, task);
  report.candidate_hash = TaskHash(candidate_results, task);
  bool same = !report.baseline_hash.empty() && report.baseline_hash == report.candidate_hash;
  report.verdict = same ? Verdict::kPass : Verdict::kInvalid;
  return report;
}

boost::json::object ToJson(const ProtocolReport& report) {
  return boost::json::object{{"gate", "protocol"},
                             {"verdict", VerdictName(report.verdict)},
                             {"baseline_task_hash", report.baseline_hash},
                             {"candidate_task_hash", report.candidate_hash}};
}

boost::json::object ToJson(const McNemarReport& report) {
  boost::json::object o;
  o["gate"] = "mcnemar";
  o["verdict"] = VerdictName(report.verdict);
  o["n"] = report.counts.n;
  o["b_baseline_right_candidate_wrong"] = report.counts.b;
  o["c_baseline_wrong_candidate_right"] = report.counts.c;
  o["unpaired"] = report.counts.unpaired;
  o["drop_points"] = report.drop_points;
  o["p_value_exact"] = report.p_value;
  o["chi2_continuity_corrected"] = report.chi2;
  o["chi2_p_value"] = report.chi2_p_value;
  o["alpha"] = report.alpha;
  o["max_drop_points"] = report.max_drop_points;
  o["reason"] = report.reason;
  return o;
}

}  // namespace servebench::eval
