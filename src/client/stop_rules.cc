#include "client/stop_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace servebench::client {

StopMonitor::StopMonitor(const StopRuleSettings& rules, double clock_scale, int64_t start_ns)
    : rules_(rules),
      scale_(clock_scale > 0 ? clock_scale : 1),
      window_ns_(std::max<int64_t>(
          static_cast<int64_t>(std::llround(rules.saturation_window_s * 1e9 * scale_)), 1)),
      window_start_ns_(start_ns) {
  at_window_start_.t_ns = start_ns;
}

std::optional<StopDecision> StopMonitor::Observe(const StopSample& x) {
  if (fired_) return std::nullopt;
  int64_t finished = x.done + x.failed;
  if (rules_.max_error_rate > 0 && finished >= rules_.error_rate_min_requests && finished > 0) {
    double rate = static_cast<double>(x.failed) / static_cast<double>(finished);
    if (rate > rules_.max_error_rate) {
      fired_ = true;
      return StopDecision{
          "error_rate",
          fmt::format("{} of {} finished requests failed ({:.1f} %), above --max-error-rate {}",
                      x.failed, finished, 100 * rate, rules_.max_error_rate)};
    }
  }
  if (!rules_.detect_saturation) return std::nullopt;
  while (x.t_ns >= window_start_ns_ + window_ns_) {
    // Close the window: the mean over the requests completed in it (none: no sample).
    int64_t n = x.ttft_count - at_window_start_.ttft_count;
    if (n > 0) {
      double mean_ns = static_cast<double>(x.ttft_sum_ns - at_window_start_.ttft_sum_ns) /
                       static_cast<double>(n);
      means_ms_.push_back(mean_ns / 1e6 / scale_);
    }
    window_start_ns_ += window_ns_;
    at_window_start_ = x;
    size_t k = static_cast<size_t>(std::max(rules_.saturation_windows, 1));
    if (n <= 0 || means_ms_.size() < k + 1) continue;
    bool growing = true;
    for (size_t i = means_ms_.size() - k; i < means_ms_.size(); ++i) {
      growing = growing && means_ms_[i] > means_ms_[i - 1];
    }
    double lowest = *std::min_element(means_ms_.begin(), means_ms_.end());
    double last = means_ms_.back();
    if (growing && last >= rules_.saturation_factor * lowest) {
      fired_ = true;
      return StopDecision{
          "saturation",
          fmt::format("queueing grows: the mean time from schedule to first token rose in each "
                      "of the last {} windows of {} s, to {:.1f} ms ({:.1f}x the lowest window, "
                      "{:.1f} ms; --saturation-factor {})",
                      k, rules_.saturation_window_s, last, last / lowest, lowest,
                      rules_.saturation_factor)};
    }
  }
  return std::nullopt;
}

}  // namespace servebench::client
