#include "metrics/prometheus.h"

#include <gtest/gtest.h>

#include <cmath>

namespace servebench::metrics {
namespace {

TEST(PrometheusTextTest, ParsesLabelsCommentsAndSpecialValues) {
  auto r = ParsePrometheusText(
      "# HELP vllm:x help text\n# TYPE vllm:x counter\n"
      "vllm:x{engine=\"0\",model_name=\"m \\\"q\\\"\"} 12.5\n"
      "up 1 1700000000000\r\n"
      "gauge_nan NaN\nbig +Inf\n\n");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].name, "vllm:x");
  EXPECT_EQ((*r)[0].labels.at("model_name"), "m \"q\"");
  EXPECT_EQ((*r)[0].value, 12.5);
  EXPECT_EQ((*r)[1].value, 1);
  EXPECT_TRUE(std::isnan((*r)[2].value));
  EXPECT_TRUE(std::isinf((*r)[3].value));
}

TEST(PrometheusTextTest, GarbageLineIsRejectedWithItsNumber) {
  auto r = ParsePrometheusText("ok 1\n<html>not metrics</html>\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("line 2"), std::string::npos);
}

SpecCounters Counters(double drafts, double tokens, double accepted, std::vector<double> pos) {
  std::string text;
  // Two DP ranks: every counter is split in halves that must be summed.
  for (int rank = 0; rank < 2; ++rank) {
    text += "vllm:spec_decode_num_drafts_total{engine=\"" + std::to_string(rank) + "\"} " +
            std::to_string(drafts / 2) + "\n";
    text += "vllm:spec_decode_num_draft_tokens_total{engine=\"" + std::to_string(rank) + "\"} " +
            std::to_string(tokens / 2) + "\n";
    text += "vllm:spec_decode_num_accepted_tokens_total{engine=\"" + std::to_string(rank) + "\"} " +
            std::to_string(accepted / 2) + "\n";
    for (size_t k = 0; k < pos.size(); ++k) {
      text += "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"" +
              std::to_string(rank) + "\",position=\"" + std::to_string(k) + "\"} " +
              std::to_string(pos[k] / 2) + "\n";
    }
  }
  auto samples = ParsePrometheusText(text);
  EXPECT_TRUE(samples.ok());
  return ExtractSpecCounters(*samples);
}

// metrics.md §9 D, with counters that did not start at zero.
TEST(SpecAcceptanceTest, WorkedExampleDFromCounterDeltas) {
  SpecCounters before = Counters(100, 300, 50, {30, 15, 5});
  SpecCounters after = Counters(1100, 3300, 1830, {830, 615, 385});
  SpecAcceptance a = ComputeSpecAcceptance(before, after);
  EXPECT_DOUBLE_EQ(a.delta_drafts, 1000);
  ASSERT_TRUE(a.acceptance_length.has_value());
  EXPECT_NEAR(*a.acceptance_length, 2.78, 1e-12);
  EXPECT_NEAR(*a.acceptance_rate, 0.5933, 1e-4);
  ASSERT_EQ(a.per_position.size(), 3u);
  EXPECT_NEAR(a.per_position[0], 0.80, 1e-12);
  EXPECT_NEAR(a.per_position[1], 0.60, 1e-12);
  EXPECT_NEAR(a.per_position[2], 0.38, 1e-12);
}

TEST(SpecAcceptanceTest, StaticCountersGiveNoAcceptance) {
  SpecCounters c = Counters(100, 300, 50, {});
  SpecAcceptance a = ComputeSpecAcceptance(c, c);
  EXPECT_FALSE(a.acceptance_length.has_value());
}

TEST(SpecAcceptanceTest, LlamaCppPrefixIsRead) {
  auto s = ParsePrometheusText("llamacpp:spec_decode_num_drafts_total 4\n");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(ExtractSpecCounters(*s).present);
  EXPECT_EQ(ExtractSpecCounters(*s).num_drafts, 4);
}

}  // namespace
}  // namespace servebench::metrics
