#include "metrics/run_summary.h"

#include <gtest/gtest.h>

#include <numeric>

namespace servebench::metrics {
namespace {

int64_t Ms(double ms) { return static_cast<int64_t>(ms * 1e6 + 0.5); }

// A successful request: sent at `sent_ms`, events (t_ms, k), usage when >= 0.
RequestRecord Request(double scheduled_ms, double sent_ms,
                      std::vector<std::pair<double, int>> events, int64_t usage_n,
                      int64_t index = 0) {
  RequestRecord r;
  r.index = index;
  r.t_scheduled_ns = Ms(scheduled_ms);
  r.t_sent_ns = Ms(sent_ms);
  for (auto [t, k] : events) {
    r.events.push_back({Ms(t), k});
    if (k > 0) {
      if (r.t_first_token_ns < 0) r.t_first_token_ns = Ms(t);
      r.t_last_token_ns = Ms(t);
    }
  }
  r.t_done_ns = r.events.empty() ? r.t_sent_ns : r.events.back().t_ns;
  r.usage_completion_tokens = usage_n;
  r.http_status = 200;
  return r;
}

SummaryInputs Inputs(int64_t requested) {
  SummaryInputs in;
  in.requested_prompts = requested;
  in.client_issue_delay_limit_ms = 1e9;  // not under test unless a test says so
  return in;
}

// metrics.md §9 A.
TEST(RunSummaryTest, WorkedExampleAOneChatRequest) {
  RequestRecord r =
      Request(0.8, 1.0, {{50.0, 0}, {101.0, 1}, {121.0, 1}, {161.0, 2}, {161.5, 0}}, 4);
  r.t_done_ns = Ms(161.7);
  RunSummary s = ComputeRunSummary({r}, Inputs(1));
  EXPECT_NEAR(s.ttft.mean, 100.0, 1e-9);
  EXPECT_NEAR(s.ttft_from_schedule.mean, 100.2, 1e-9);
  EXPECT_NEAR(s.e2el.mean, 160.0, 1e-9);
  EXPECT_NEAR(s.e2el_from_schedule.mean, 160.2, 1e-9);
  EXPECT_NEAR(s.issue_delay.mean, 0.2, 1e-9);
  EXPECT_NEAR(s.client_queue_time.mean, 0.0, 1e-12);
  EXPECT_EQ(s.total_output_tokens, 4);
  EXPECT_EQ(s.n_sources.at("usage"), 1);
  EXPECT_NEAR(s.tpot.mean, 20.0, 1e-9);
  EXPECT_NEAR(s.intvty.at("mean"), 50.0, 1e-9);
  ASSERT_EQ(s.itl.count, 2u);
  EXPECT_NEAR(s.itl.min, 20.0, 1e-9);
  EXPECT_NEAR(s.itl.max, 40.0, 1e-9);
  ASSERT_EQ(s.itl_per_token.count, 3u);
  EXPECT_NEAR(s.itl_per_token.min, 20.0, 1e-9);
  EXPECT_NEAR(s.itl_per_token.max, 20.0, 1e-9);
  EXPECT_NEAR(s.itl_per_token.mean * 3, 60.0, 1e-9);  // Σ = e2el − ttft
  EXPECT_TRUE(s.validity.valid());
}

// metrics.md §9 C.
TEST(RunSummaryTest, WorkedExampleCThroughputAndPerGpu) {
  std::vector<RequestRecord> rs;
  for (int i = 0; i < 8; ++i) {
    RequestRecord r = Request(0, 0, {{100, 1}, {200, 499}}, 500, i);
    r.usage_prompt_tokens = 1000;
    rs.push_back(r);
  }
  rs.back().t_done_ns = Ms(10'000);
  SummaryInputs in = Inputs(8);
  in.gpus.num_gpus = 4;
  RunSummary s = ComputeRunSummary(rs, in);
  EXPECT_DOUBLE_EQ(s.duration_s, 10.0);
  EXPECT_DOUBLE_EQ(s.request_throughput, 0.8);
  EXPECT_DOUBLE_EQ(s.output_throughput, 400);
  EXPECT_DOUBLE_EQ(s.input_throughput, 800);
  EXPECT_DOUBLE_EQ(s.total_token_throughput, 1200);
  ASSERT_TRUE(s.per_gpu.has_value());
  EXPECT_DOUBLE_EQ(s.per_gpu->tput_per_gpu, 300);
  EXPECT_DOUBLE_EQ(s.per_gpu->output_tput_per_gpu, 100);
  EXPECT_DOUBLE_EQ(s.per_gpu->input_tput_per_gpu, 200);
  in.gpus = {0, 4, 8};
  s = ComputeRunSummary(rs, in);
  EXPECT_DOUBLE_EQ(s.per_gpu->tput_per_gpu, 100);
  EXPECT_DOUBLE_EQ(s.per_gpu->output_tput_per_gpu, 50);
  EXPECT_DOUBLE_EQ(s.per_gpu->input_tput_per_gpu, 200);
  in.gpus = {0, 8, 0};
  s = ComputeRunSummary(rs, in);
  EXPECT_DOUBLE_EQ(s.per_gpu->tput_per_gpu, 150);
  EXPECT_DOUBLE_EQ(s.per_gpu->output_tput_per_gpu, 50);
  EXPECT_DOUBLE_EQ(s.per_gpu->input_tput_per_gpu, 100);
}

// metrics.md §9 E: peak counts tokens, not chunks.
TEST(RunSummaryTest, WorkedExampleEPeakOutputCountsTokens) {
  RequestRecord a = Request(0, 0, {{200, 1}, {600, 3}, {1100, 3}, {1400, 1}}, 8, 0);
  RequestRecord b = Request(0, 100, {{500, 1}, {900, 2}, {1300, 2}}, 5, 1);
  RunSummary s = ComputeRunSummary({a, b}, Inputs(2));
  EXPECT_DOUBLE_EQ(s.max_output_tokens_per_s, 7);
  EXPECT_EQ(s.max_concurrent_requests, 2);
}

// metrics.md §9 F.
TEST(RunSummaryTest, WorkedExampleFGoodput) {
  auto req = [](double ttft, double tpot, int n, int index) {
    std::vector<std::pair<double, int>> ev;
    for (int i = 0; i < n; ++i) ev.push_back({ttft + tpot * i, 1});
    return Request(0, 0, ev, n, index);
  };
  std::vector<RequestRecord> rs = {req(100, 20, 5, 0), req(300, 18, 5, 1), req(150, 30, 5, 2),
                                   req(80, 0, 1, 3)};
  rs[0].t_done_ns = Ms(10'000);
  SummaryInputs in = Inputs(4);
  in.goodput.ttft_ms = 200;
  in.goodput.tpot_ms = 25;
  RunSummary s = ComputeRunSummary(rs, in);
  ASSERT_TRUE(s.request_goodput.has_value());
  EXPECT_DOUBLE_EQ(*s.request_goodput, 0.2);
  EXPECT_FALSE(ComputeRunSummary(rs, Inputs(4)).request_goodput.has_value());
}

// metrics.md §9 G: interactivity at a TPOT statistic, not a statistic of interactivity.
TEST(RunSummaryTest, WorkedExampleGInteractivityIsAtTheTpotStatistic) {
  std::vector<double> tpots(101, 10.0);
  for (int i = 50; i < 99; ++i) tpots[i] = 20;
  tpots[99] = 25;
  tpots[100] = 30;
  std::vector<RequestRecord> rs;
  for (int i = 0; i < 101; ++i) {
    rs.push_back(Request(0, 0, {{100, 1}, {100 + tpots[i], 1}}, 2, i));
  }
  RunSummary s = ComputeRunSummary(rs, Inputs(101));
  EXPECT_NEAR(s.tpot.median, 20, 1e-9);
  EXPECT_NEAR(s.intvty.at("median"), 50, 1e-9);
  EXPECT_NEAR(s.intvty.at("p99"), 40, 1e-9);
}

TEST(RunSummaryTest, ItlPerTokenSumsToDecodeTimeForEveryRequest) {
  RequestRecord r = Request(0, 0, {{10, 2}, {14, 4}, {22, 4}, {30, 2}}, 12);
  r.k_source = KSource::kContinuousUsage;
  RunSummary s = ComputeRunSummary({r}, Inputs(1));
  EXPECT_EQ(s.itl_per_token.count, 10u);  // n − k_first
  EXPECT_NEAR(s.itl_per_token.mean * 10, 20, 1e-9);
  EXPECT_NEAR(s.itl.mean * 3, 20, 1e-9);
}

TEST(RunSummaryTest, FailedAndMissingRequestsMakeTheRunInvalid) {
  RequestRecord ok = Request(0, 0, {{10, 1}, {20, 1}}, 2, 0);
  RequestRecord bad = ok;
  bad.index = 1;
  bad.failure = FailureKind::kHttpStatus;
  bad.error = "HTTP 500";
  RunSummary s = ComputeRunSummary({ok, bad}, Inputs(3));
  EXPECT_EQ(s.completed, 1);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.failures.at("http_status"), 1);
  EXPECT_FALSE(s.validity.valid());
  EXPECT_EQ(s.validity.reason_codes(), (std::vector<std::string>{"failed_requests", "incomplete"}));
}

TEST(RunSummaryTest, ShortOutputsUnderIgnoreEosAreInvalid) {
  RequestRecord r = Request(0, 0, {{10, 1}, {20, 1}}, 2);
  r.max_tokens = 100;
  SummaryInputs in = Inputs(1);
  in.ignore_eos = true;
  EXPECT_EQ(ComputeRunSummary({r}, in).validity.reason_codes(),
            std::vector<std::string>{"short_outputs"});
}

TEST(RunSummaryTest, LateClientIsInvalid) {
  RequestRecord r = Request(0, 5, {{10, 1}, {20, 1}}, 2);
  SummaryInputs in = Inputs(1);
  in.client_issue_delay_limit_ms = 1.0;
  EXPECT_EQ(ComputeRunSummary({r}, in).validity.reason_codes(),
            std::vector<std::string>{"client_saturated"});
}

TEST(RunSummaryTest, SpecDecodingWithoutMovingCountersIsInvalid) {
  RequestRecord r = Request(0, 0, {{10, 1}, {20, 1}}, 2);
  SummaryInputs in = Inputs(1);
  in.spec_decoding_on = true;
  EXPECT_EQ(ComputeRunSummary({r}, in).validity.reason_codes(),
            std::vector<std::string>{"spec_counters_static"});
  SpecCounters c;
  c.present = true;
  c.num_drafts = 10;
  c.num_draft_tokens = 30;
  in.spec_before = c;
  in.spec_after = c;
  EXPECT_EQ(ComputeRunSummary({r}, in).validity.reason_codes(),
            std::vector<std::string>{"spec_counters_static"});
}

TEST(RunSummaryTest, EventCountTokensAreAWarningOnly) {
  RequestRecord r = Request(0, 0, {{10, 1}, {20, 1}}, -1);
  RunSummary s = ComputeRunSummary({r}, Inputs(1));
  EXPECT_TRUE(s.validity.valid());
  EXPECT_EQ(s.validity.warning_codes(), std::vector<std::string>{"token_count_unreliable"});
  EXPECT_EQ(s.total_output_tokens, 2);
}

TEST(RunSummaryTest, WarmupsAreExcludedFromEveryMetric) {
  RequestRecord w = Request(0, 0, {{1000, 1}, {2000, 1}}, 2);
  w.warmup = true;
  RequestRecord r = Request(0, 0, {{10, 1}, {20, 1}}, 2);
  RunSummary s = ComputeRunSummary({w, r}, Inputs(1));
  EXPECT_EQ(s.completed, 1);
  EXPECT_NEAR(s.ttft.mean, 10, 1e-9);
}

}  // namespace
}  // namespace servebench::metrics
