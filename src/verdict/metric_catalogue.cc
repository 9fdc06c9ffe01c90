#include "verdict/metric_catalogue.h"

namespace servebench::verdict {

const std::vector<MetricSpec>& AllMetrics() {
  // delta_min per class: throughput per GPU and curve scores 2.5 %; median
  // latencies 5 %; p99 latencies 10 % with k = 4 (tails are noisier).
  static const std::vector<MetricSpec> kMetrics = {
      {"tput_per_gpu", Better::kHigher, 0.025, 3, true},
      {"output_tput_per_gpu", Better::kHigher, 0.025, 3, true},
      {"input_tput_per_gpu", Better::kHigher, 0.025, 3, false},
      {"median_ttft_ms", Better::kLower, 0.05, 3, true},
      {"median_tpot_ms", Better::kLower, 0.05, 3, true},
      {"median_itl_ms", Better::kLower, 0.05, 3, true},
      {"median_e2el_ms", Better::kLower, 0.05, 3, true},
      {"p99_ttft_ms", Better::kLower, 0.10, 4, true},
      {"p99_tpot_ms", Better::kLower, 0.10, 4, true},
      {"p99_itl_ms", Better::kLower, 0.10, 4, true},
      // Time to first output (docs/metrics.md "Channels"): what a reasoning model's user
      // waits for, so longer thinking is a regression even where TTFT holds. Where
      // nothing reasons TTFO = TTFT; a series regresses when any counted metric does,
      // so the same move is one verdict, not two.
      {"median_ttfo_ms", Better::kLower, 0.05, 3, true},
      {"p99_ttfo_ms", Better::kLower, 0.10, 4, true},
      {"median_intvty", Better::kHigher, 0.05, 3, false},
      {"tput_at_intvty(20)", Better::kHigher, 0.025, 3, true},
      {"tput_at_intvty(35)", Better::kHigher, 0.025, 3, true},
      {"tput_at_intvty(50)", Better::kHigher, 0.025, 3, true},
      {"tput_at_intvty(100)", Better::kHigher, 0.025, 3, true},
      {"pareto_auc", Better::kHigher, 0.025, 3, true},
      // Energy per token (docs/power.md), when the point measured valid power: 5 % as
      // the median latencies (board power sensors are good to ±5 W; J/token moves with
      // both power and throughput). Tokens per joule is its reciprocal: shown, not
      // counted, so one change is not two regressions.
      {"joules_per_output_token", Better::kLower, 0.05, 3, true},
      {"output_tokens_per_joule", Better::kHigher, 0.05, 3, false},
      // Tool-call validity (docs/metrics.md "Channels"): a build whose calls' arguments
      // stop parsing as JSON answers worse however fast it is. 2 %: near 1 a drop of
      // 0.02 is one broken call in fifty.
      {"tool_call_valid_fraction", Better::kHigher, 0.02, 3, true},
      // A search's answer (docs/search.md): higher is better. 5 %, the rate search's
      // default resolution (--search-resolution 0.05): a smaller move is inside what
      // the bisection can tell apart. A concurrency answer moves in whole steps, so at
      // small boundaries any confirmed step down counts.
      {"max_concurrency_at_slo", Better::kHigher, 0.05, 3, true},
      {"max_request_rate_at_slo", Better::kHigher, 0.05, 3, true},
  };
  return kMetrics;
}

const MetricSpec* FindMetric(std::string_view name) {
  for (const MetricSpec& m : AllMetrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace servebench::verdict
