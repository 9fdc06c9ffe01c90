#include "client/client_settings.h"

#include <fmt/format.h>

#include <cmath>

namespace servebench::client {

Status Validate(const BenchSettings& s) {
  auto bad = [](std::string m) { return Status::InvalidArgument(std::move(m)); };
  if (s.model.empty()) return bad("--model is empty: name the model the server serves");
  if (s.endpoint.empty() || s.endpoint[0] != '/') {
    return bad(
        fmt::format("--endpoint '{}': must start with '/' (e.g. /v1/completions)", s.endpoint));
  }
  if (s.num_prompts <= 0) return bad(fmt::format("--num-prompts {}: must be >= 1", s.num_prompts));
  if (s.num_warmups < 0) return bad(fmt::format("--num-warmups {}: must be >= 0", s.num_warmups));
  if (s.random_input_len < 1)
    return bad(fmt::format("--random-input-len {}: must be >= 1", s.random_input_len));
  if (s.random_output_len < 1)
    return bad(fmt::format("--random-output-len {}: must be >= 1", s.random_output_len));
  if (s.random_prefix_len < 0)
    return bad(fmt::format("--random-prefix-len {}: must be >= 0", s.random_prefix_len));
  if (s.random_range_ratio < 0 ||
      (s.range_ratio_semantics == RangeRatioSemantics::kVllm && s.random_range_ratio >= 1) ||
      s.random_range_ratio > 1) {
    return bad(
        fmt::format("--random-range-ratio {}: must be in [0, 1) for vllm semantics, [0, 1] "
                    "for inferencex semantics",
                    s.random_range_ratio));
  }
  if (!(s.request_rate_per_s >= 0)) {
    return bad(fmt::format("--request-rate {}: must be >= 0 or inf", s.request_rate_per_s));
  }
  if (!(s.burstiness > 0))
    return bad(fmt::format("--burstiness {}: must be > 0 (1 = Poisson)", s.burstiness));
  if (s.max_concurrency < 0)
    return bad(fmt::format("--max-concurrency {}: must be >= 0", s.max_concurrency));
  if (s.request_timeout_s < 0)
    return bad(fmt::format("--request-timeout {}: must be >= 0", s.request_timeout_s));
  if (s.num_workers < 0 || s.num_workers > 256) {
    return bad(fmt::format("--num-workers {}: must be 0 (auto) .. 256", s.num_workers));
  }
  for (double p : s.percentiles) {
    if (p < 0 || p > 100) return bad(fmt::format("percentile {}: must be in [0, 100]", p));
  }
  for (double p : s.metric_percentiles) {
    if (p < 0 || p > 100)
      return bad(fmt::format("--metric-percentiles {}: must be in [0, 100]", p));
  }
  for (const std::string& m : s.percentile_metrics) {
    if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el") {
      return bad(fmt::format("--percentile-metrics '{}': allowed are ttft, tpot, itl, e2el", m));
    }
  }
  return Status::Ok();
}

}  // namespace servebench::client
