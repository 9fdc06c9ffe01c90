#include "metrics/stat_selector.h"

#include <gtest/gtest.h>

namespace servebench::metrics {
namespace {

RunSummary SummaryWithTtft(std::vector<double> ms, std::vector<double> percentiles) {
  RunSummary s;
  s.ttft = ComputeStats(ms, percentiles);
  s.ttft_from_schedule = ComputeStats({1000}, percentiles);
  return s;
}

TEST(StatSelectorTest, PercentileMedianAndMeanReadTheSummarysStats) {
  // metrics.md §9 B: [10, 20, 30, 40] -> mean 25, median 25, p90 37, p99 39.7.
  RunSummary s = SummaryWithTtft({10, 20, 30, 40}, {90, 99});
  auto p99 = ParseStatSelector("ttft_p99_ms");
  ASSERT_TRUE(p99.ok()) << p99.status().ToString();
  EXPECT_EQ(RequiredPercentile(*p99), 99.0);
  EXPECT_NEAR(*SelectStat(s, *p99), 39.7, 1e-9);
  EXPECT_NEAR(*SelectStat(s, *ParseStatSelector("ttft_p90_ms")), 37.0, 1e-9);
  EXPECT_NEAR(*SelectStat(s, *ParseStatSelector("ttft_median_ms")), 25.0, 1e-9);
  EXPECT_NEAR(*SelectStat(s, *ParseStatSelector("ttft_p50_ms")), 25.0, 1e-9);
  EXPECT_NEAR(*SelectStat(s, *ParseStatSelector("ttft_mean_ms")), 25.0, 1e-9);
  EXPECT_FALSE(RequiredPercentile(*ParseStatSelector("ttft_mean_ms")).has_value());
}

TEST(StatSelectorTest, LongerMetricNamesAreNotMistakenForTheirPrefix) {
  RunSummary s = SummaryWithTtft({10}, {99});
  auto fs = ParseStatSelector("ttft_from_schedule_p99_ms");
  ASSERT_TRUE(fs.ok());
  EXPECT_EQ(fs->metric, "ttft_from_schedule");
  EXPECT_NEAR(*SelectStat(s, *fs), 1000.0, 1e-9);
  EXPECT_EQ(ParseStatSelector("itl_per_token_p99.9_ms")->percentile, 99.9);
}

TEST(StatSelectorTest, UncomputedPercentileOrEmptySetHasNoValue) {
  RunSummary s = SummaryWithTtft({10, 20}, {99});
  EXPECT_FALSE(SelectStat(s, *ParseStatSelector("ttft_p90_ms")).has_value());
  EXPECT_FALSE(SelectStat(s, *ParseStatSelector("tpot_median_ms")).has_value());
}

TEST(StatSelectorTest, BadNamesAreRefusedWithTheAllowedForms) {
  for (const char* bad : {"ttft_p99", "ttfx_p99_ms", "ttft_p101_ms", "ttft_max_ms", "tpot_pxx_ms",
                          "_p99_ms", "ttft__ms"}) {
    auto s = ParseStatSelector(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("<metric>_<stat>_ms"), std::string::npos) << bad;
    EXPECT_NE(s.status().message().find(bad), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace servebench::metrics
