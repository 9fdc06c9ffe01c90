// The derived metrics of metrics.md §5 and §6, with its worked examples C and G.
#include "metrics/headline.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace servebench::metrics {
namespace {

// Example C: total 1200 tok/s, output 400 tok/s.
constexpr double kTotal = 1200, kOutput = 400;

TEST(HeadlineTest, SingleNodePerGpuThroughputDividesByTpTimesPpTimesPcp) {
  GpuTopology g = SingleNodeTopology({.tp = 4, .pp = 1, .pcp_size = 1, .ep = 8});
  EXPECT_EQ(g.num_gpus, 4) << "expert parallelism reuses the TP GPUs on one node";
  auto pg = PerGpu(kTotal, kOutput, g);
  ASSERT_TRUE(pg.has_value());
  EXPECT_DOUBLE_EQ(pg->tput_per_gpu, 300) << "InferenceX: total tokens per GPU";
  EXPECT_DOUBLE_EQ(pg->output_tput_per_gpu, 100);
  EXPECT_DOUBLE_EQ(pg->input_tput_per_gpu, 200);
}

TEST(HeadlineTest, MultinodeSplitsPrefillAndDecodeGpus) {
  // P 4 (one prefill worker of tp 4), D 8 (two decode workers of tp 4).
  GpuTopology g = MultinodeTopology(1, {.tp = 4}, 2, {.tp = 4});
  EXPECT_EQ(g.prefill_gpus, 4);
  EXPECT_EQ(g.decode_gpus, 8);
  EXPECT_EQ(g.total(), 12);
  auto pg = PerGpu(kTotal, kOutput, g);
  ASSERT_TRUE(pg.has_value());
  EXPECT_DOUBLE_EQ(pg->tput_per_gpu, 100);
  EXPECT_DOUBLE_EQ(pg->output_tput_per_gpu, 50);
  EXPECT_DOUBLE_EQ(pg->input_tput_per_gpu, 200);
}

TEST(HeadlineTest, AggregatedMultinodeDividesOutputByEveryGpu) {
  GpuTopology g = MultinodeTopology(2, {.tp = 4}, 0, {.tp = 4});
  auto pg = PerGpu(kTotal, kOutput, g);
  ASSERT_TRUE(pg.has_value());
  EXPECT_DOUBLE_EQ(pg->tput_per_gpu, 150);
  EXPECT_DOUBLE_EQ(pg->output_tput_per_gpu, 50);
  EXPECT_DOUBLE_EQ(pg->input_tput_per_gpu, 100);
}

TEST(HeadlineTest, ReplicaGpusAreTheLargerOfParallelismAndExperts) {
  // vLLM rows write DEP8 as tp 1, ep 8: eight GPUs per replica (disagg.md §1).
  GpuTopology g = MultinodeTopology(1, {.tp = 1, .ep = 8}, 1, {.tp = 2, .pp = 2});
  EXPECT_EQ(g.prefill_gpus, 8);
  EXPECT_EQ(g.decode_gpus, 4);
}

TEST(HeadlineTest, UnknownTopologyHasNoPerGpuNumbers) {
  EXPECT_FALSE(PerGpu(kTotal, kOutput, GpuTopology{}).has_value());
}

TEST(HeadlineTest, InteractivityIsOneThousandOverTpot) {
  // Example G: median TPOT 20 ms -> 50, p99 TPOT 25 ms -> 40 tok/s/user.
  EXPECT_DOUBLE_EQ(*Interactivity(20), 50);
  EXPECT_DOUBLE_EQ(*Interactivity(25), 40);
  EXPECT_FALSE(Interactivity(0).has_value());
  EXPECT_FALSE(Interactivity(-1).has_value());
}

TEST(HeadlineTest, FromResultDerivesEveryMetricOnce) {
  boost::json::object result{{"completed", 8},
                             {"failed", 0},
                             {"request_throughput", 0.8},
                             {"output_throughput", kOutput},
                             {"total_token_throughput", kTotal},
                             {"median_ttft_ms", 100.0},
                             {"p99_ttft_ms", 190.0},
                             {"median_tpot_ms", 20.0},
                             {"p99_tpot_ms", 25.0},
                             {"median_itl_ms", 19.0},
                             {"p99_itl_ms", 40.0},
                             {"spec_decode_acceptance_length", 2.78}};
  Headline h = HeadlineFromResult(result, SingleNodeTopology({.tp = 4}));
  EXPECT_EQ(h.completed, 8);
  EXPECT_DOUBLE_EQ(*h.input_throughput, 800);
  EXPECT_DOUBLE_EQ(*h.tput_per_gpu, 300);
  EXPECT_DOUBLE_EQ(*h.output_tput_per_gpu, 100);
  EXPECT_DOUBLE_EQ(*h.input_tput_per_gpu, 200);
  EXPECT_DOUBLE_EQ(*h.median_intvty, 50);
  EXPECT_DOUBLE_EQ(*h.p99_intvty, 40);
  EXPECT_DOUBLE_EQ(*h.acceptance_length, 2.78);
  EXPECT_FALSE(h.median_e2el_ms.has_value()) << "absent keys stay missing, never 0";
}

TEST(HeadlineTest, PowerComesFromServebenchPowerAndInvalidPowerStaysMissing) {
  boost::json::object power{{"power_valid", 1},
                            {"avg_power_w", 450.0},
                            {"total_gpu_energy_j", 9216.0},
                            {"joules_per_output_token", 0.9},
                            {"output_tokens_per_joule", 1.1111}};
  boost::json::object result{{"completed", 8},
                             {"output_throughput", kOutput},
                             {"servebench", boost::json::object{{"power", power}}}};
  Headline h = HeadlineFromResult(result, SingleNodeTopology({.tp = 2}));
  EXPECT_DOUBLE_EQ(*h.avg_power_w, 450);
  EXPECT_DOUBLE_EQ(*h.total_gpu_energy_j, 9216);
  EXPECT_DOUBLE_EQ(*h.joules_per_output_token, 0.9);
  EXPECT_DOUBLE_EQ(*h.output_tokens_per_joule, 1.1111);
  // Invalid power nulls the measured keys (docs/power.md): missing, never 0.
  for (const char* key : {"avg_power_w", "total_gpu_energy_j", "joules_per_output_token",
                          "output_tokens_per_joule"}) {
    power[key] = nullptr;
  }
  power["power_valid"] = 0;
  result["servebench"] = boost::json::object{{"power", power}};
  Headline invalid = HeadlineFromResult(result, SingleNodeTopology({.tp = 2}));
  EXPECT_FALSE(invalid.avg_power_w.has_value());
  EXPECT_FALSE(invalid.joules_per_output_token.has_value());
  EXPECT_FALSE(HeadlineFromResult({{"completed", 8}}, SingleNodeTopology({}))
                   .output_tokens_per_joule.has_value());
}

// Tool-call validity: valid / (valid + invalid) of servebench.tool_calls; missing when
// the run returned no tool call (a run without tools is not "0 % valid").
TEST(HeadlineTest, ToolCallValidityIsTheShareOfCallsWhoseArgumentsParse) {
  boost::json::object calls{{"valid", 45}, {"invalid", 5}, {"requests_without_tool_call", 3}};
  boost::json::object result{{"completed", 53},
                             {"servebench", boost::json::object{{"tool_calls", calls}}}};
  EXPECT_DOUBLE_EQ(*HeadlineFromResult(result, SingleNodeTopology({})).tool_call_valid_fraction,
                   0.9);
  calls["valid"] = 0;
  calls["invalid"] = 0;
  result["servebench"] = boost::json::object{{"tool_calls", calls}};
  EXPECT_FALSE(
      HeadlineFromResult(result, SingleNodeTopology({})).tool_call_valid_fraction.has_value());
  EXPECT_FALSE(HeadlineFromResult({{"completed", 8}}, SingleNodeTopology({}))
                   .tool_call_valid_fraction.has_value());
}

TEST(HeadlineTest, RunWithNothingCompletedHasNoLatencies) {
  // The vLLM-compatible writer puts 0.0 for the statistics of an empty set.
  boost::json::object result{{"completed", 0},
                             {"failed", 8},
                             {"median_ttft_ms", 0.0},
                             {"output_throughput", 0.0},
                             {"total_token_throughput", 0.0}};
  Headline h = HeadlineFromResult(result, SingleNodeTopology({}));
  EXPECT_EQ(h.failed, 8);
  EXPECT_FALSE(h.median_ttft_ms.has_value());
  EXPECT_DOUBLE_EQ(*h.tput_per_gpu, 0);
}

// A `servebench search` answer (docs/search.md): its boundary is read from the top level
// of the search JSON, null (nothing met the SLO) as missing; a load run has neither.
TEST(HeadlineTest, SearchAnswersAreReadFromTheTopLevelOfTheSearchJson) {
  Headline c = HeadlineFromResult(
      boost::json::object{{"max_concurrency_at_slo", 30}, {"first_failing", 32}}, GpuTopology{});
  EXPECT_EQ(c.max_concurrency_at_slo, 30);
  EXPECT_FALSE(c.max_request_rate_at_slo.has_value());
  EXPECT_FALSE(c.tput_per_gpu.has_value());
  Headline r = HeadlineFromResult(boost::json::object{{"max_request_rate_at_slo", 12.5}}, {});
  EXPECT_EQ(r.max_request_rate_at_slo, 12.5);
  Headline none = HeadlineFromResult(boost::json::object{{"max_concurrency_at_slo", nullptr}}, {});
  EXPECT_FALSE(none.max_concurrency_at_slo.has_value());
  Headline load = HeadlineFromResult(boost::json::object{{"completed", 4}}, {});
  EXPECT_FALSE(load.max_concurrency_at_slo.has_value());
}

TEST(HeadlineTest, EveryMetricHasAUniqueNameAndField) {
  const auto& all = HeadlineMetrics();
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(FindHeadlineMetric(all[i].name), &all[i]);
    for (size_t j = i + 1; j < all.size(); ++j) EXPECT_NE(all[i].field, all[j].field);
  }
  EXPECT_EQ(FindHeadlineMetric("nope"), nullptr);
}

}  // namespace
}  // namespace servebench::metrics
