#include "client/stop_rules.h"

#include <gtest/gtest.h>

namespace servebench::client {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

TEST(StopRulesTest, ErrorRateFiresOnceAboveTheThresholdAfterTheMinimumCount) {
  StopRuleSettings r;
  r.max_error_rate = 0.25;
  r.error_rate_min_requests = 20;
  StopMonitor m(r, 1, 0);
  // 10 of 10 failed: above the rate, but too few to judge.
  EXPECT_FALSE(m.Observe({.t_ns = 1, .done = 0, .failed = 10}));
  // 5 of 20 (25 %): not above.
  EXPECT_FALSE(m.Observe({.t_ns = 2, .done = 15, .failed = 5}));
  auto d = m.Observe({.t_ns = 3, .done = 15, .failed = 6});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->rule, "error_rate");
  EXPECT_NE(d->reason.find("6 of 21"), std::string::npos) << d->reason;
  EXPECT_FALSE(m.Observe({.t_ns = 4, .done = 15, .failed = 30}));  // once
}

TEST(StopRulesTest, SaturationNeedsKGrowingWindowsAndTheFactorOverTheLowest) {
  StopRuleSettings r;
  r.detect_saturation = true;
  r.saturation_window_s = 1;
  r.saturation_windows = 3;
  r.saturation_factor = 2;
  StopMonitor m(r, 1, 0);
  // Window means (ms): 10, 9, 12, 15, 17 (grew 3 times, 17 < 2 x 9), then 25 (>= 18).
  std::vector<double> means = {10, 9, 12, 15, 17, 25};
  StopSample x;
  for (size_t w = 0; w < means.size(); ++w) {
    x.ttft_count += 10;
    x.ttft_sum_ns += static_cast<int64_t>(10 * means[w] * 1e6);
    x.t_ns = static_cast<int64_t>(w + 1) * kSecond;
    auto d = m.Observe(x);
    if (w + 1 < means.size()) {
      EXPECT_FALSE(d) << "window " << w << ": " << d->reason;
    } else {
      ASSERT_TRUE(d);
      EXPECT_EQ(d->rule, "saturation");
      EXPECT_NE(d->reason.find("25.0 ms"), std::string::npos) << d->reason;
    }
  }
  EXPECT_EQ(m.window_means_ms().size(), means.size());
}

TEST(StopRulesTest, SteadyOrNoisyQueueingNeverFires) {
  StopRuleSettings r;
  r.detect_saturation = true;
  r.saturation_window_s = 1;
  StopMonitor m(r, 1, 0);
  StopSample x;
  for (int w = 0; w < 50; ++w) {
    x.ttft_count += 10;
    x.ttft_sum_ns += static_cast<int64_t>(10 * (w % 2 == 0 ? 20.0 : 30.0) * 1e6);
    x.t_ns = (w + 1) * kSecond;
    EXPECT_FALSE(m.Observe(x)) << w;
  }
}

TEST(StopRulesTest, WindowsAreInTheRunsClockUnderACompressedSim) {
  // Time scale 0.1: a 1 s window is 0.1 s of wall time, and means are reported in the
  // run's (simulated) clock: 1 ms of wall is 10 ms simulated.
  StopRuleSettings r;
  r.detect_saturation = true;
  r.saturation_window_s = 1;
  StopMonitor m(r, 0.1, 0);
  StopSample x;
  x.ttft_count = 1;
  x.ttft_sum_ns = 1'000'000;
  x.t_ns = kSecond / 10;
  m.Observe(x);
  ASSERT_EQ(m.window_means_ms().size(), 1u);
  EXPECT_DOUBLE_EQ(m.window_means_ms()[0], 10.0);
}

}  // namespace
}  // namespace servebench::client
