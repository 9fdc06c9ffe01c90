// RunBench end to end over real loopback HTTP against the in-test fake server.
#include <gtest/gtest.h>

#include <thread>

#include "client/client.h"
#include "common/exit_codes.h"
#include "net/testing/fake_openai_server.h"

namespace servebench::client {
namespace {

using net::testing::FakeOpenAiServer;
using net::testing::FakeServerOptions;

BenchSettings Settings(const FakeOpenAiServer& server) {
  BenchSettings s;
  s.base_url = server.base_url();
  s.model = "fake";
  s.num_prompts = 12;
  s.max_concurrency = 4;
  s.random_input_len = 32;
  s.random_output_len = 8;
  s.ignore_eos = true;
  s.request_timeout_s = 10;
  s.client_issue_delay_limit_ms = 1e9;  // CI machines are shared; not under test here
  s.server_lag_limit_ms = 1e9;
  return s;
}

TEST(RunBenchTest, ClosedLoopRunCompletesEveryRequestWithExactUsage) {
  FakeServerOptions o;
  o.event_interval_us = 200;
  FakeOpenAiServer server(o);
  auto r = RunBench(Settings(server));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  EXPECT_EQ(s.completed, 12);
  EXPECT_EQ(s.failed, 0);
  EXPECT_EQ(s.total_output_tokens, 12 * 8);
  EXPECT_EQ(s.total_input_tokens, 12 * 32);
  EXPECT_EQ(s.n_sources.at("usage"), 12);
  EXPECT_LE(s.max_concurrent_requests, 4);
  EXPECT_TRUE(s.validity.valid());
  EXPECT_EQ(r->exit_code(), kExitOk);
  EXPECT_EQ(r->result.at("completed").as_int64(), 12);
  EXPECT_EQ(r->result.at("max_concurrency").as_int64(), 4);
  EXPECT_GT(r->self.events, 12 * 8);
}

TEST(RunBenchTest, MultiTokenEventsGiveItlPerTokenEqualToTpotAndItlKTimesIt) {
  FakeServerOptions o;
  o.tokens_per_event = 4;
  o.event_interval_us = 8000;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.random_output_len = 32;
  b.num_prompts = 4;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 4);
  // Σ itl_per_token = Σ (e2el − ttft) and n − 1 = 31 vs 28 samples: equal up to 31/28.
  EXPECT_NEAR(s.itl_per_token.mean, s.tpot.mean * 31.0 / 28.0, 0.02 * s.tpot.mean);
  EXPECT_NEAR(s.itl.mean, 4 * s.itl_per_token.mean, 0.01 * s.itl.mean);
  EXPECT_EQ(s.itl_per_token.count, 4u * 28);
}

TEST(RunBenchTest, ServerErrorsAreFailedRequestsAndAnInvalidRun) {
  FakeServerOptions o;
  o.status = 500;
  FakeOpenAiServer server(o);
  auto r = RunBench(Settings(server));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summary.failed, 12);
  EXPECT_EQ(r->summary.failures.at("http_status"), 12);
  EXPECT_EQ(r->exit_code(), kExitRunInvalid);
  EXPECT_NE(r->summary.sample_errors.at(0).find("injected failure"), std::string::npos);
}

struct FaultCase {
  const char* name;
  FakeServerOptions options;
  const char* failure;
};

class FaultTest : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultTest, EveryRequestFailsWithItsReasonAndNothingHangs) {
  FakeOpenAiServer server(GetParam().options);
  BenchSettings b = Settings(server);
  b.num_prompts = 4;
  b.request_timeout_s = 0.3;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.failed, 4);
  EXPECT_EQ(r->summary.failures.at(GetParam().failure), 4);
  EXPECT_EQ(r->exit_code(), kExitRunInvalid);
}

FakeServerOptions Disconnect() {
  FakeServerOptions o;
  o.disconnect_after_events = 2;
  return o;
}
FakeServerOptions Malformed() {
  FakeServerOptions o;
  o.malformed_event = true;
  return o;
}
FakeServerOptions ErrorEvent() {
  FakeServerOptions o;
  o.error_event = true;
  return o;
}
FakeServerOptions Stall() {
  FakeServerOptions o;
  o.stall_us = 800'000;
  return o;
}
FakeServerOptions Garbage() {
  FakeServerOptions o;
  o.garbage = true;
  return o;
}

INSTANTIATE_TEST_SUITE_P(Faults, FaultTest,
                         ::testing::Values(FaultCase{"disconnect", Disconnect(), "read"},
                                           FaultCase{"malformed", Malformed(), "malformed"},
                                           FaultCase{"error_event", ErrorEvent(), "stream_error"},
                                           FaultCase{"stall", Stall(), "timeout"},
                                           FaultCase{"garbage", Garbage(), "malformed"}),
                         [](const auto& info) { return std::string(info.param.name); });

// `--backend openai-chat` alone goes to the chat API; paired with the completions
// API it is refused before anything is sent (every request would be HTTP 400).
TEST(RunBenchTest, ChatBackendDefaultsTheEndpointAndRefusesTheCompletionsOne) {
  BenchSettings s;
  s.model = "m";
  s.backend = "openai-chat";
  EXPECT_EQ(EffectiveEndpoint(s), "/v1/chat/completions");
  s.backend = "openai";
  EXPECT_EQ(EffectiveEndpoint(s), "/v1/completions");
  s.endpoint = "/v1/chat/completions";
  EXPECT_EQ(EffectiveEndpoint(s), "/v1/chat/completions");

  FakeOpenAiServer server(FakeServerOptions{});
  BenchSettings b = Settings(server);
  b.backend = "openai-chat";
  b.endpoint = "/v1/completions";
  auto r = RunBench(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("--backend openai-chat"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("--endpoint /v1/completions"), std::string::npos);
  EXPECT_EQ(server.requests(), 0);
}

// Each failure kind is counted with its first message, for every output to show.
TEST(RunBenchTest, FailedRunNamesEachFailureKindWithASampleMessage) {
  FakeServerOptions o;
  o.status = 500;
  FakeOpenAiServer server(o);
  auto r = RunBench(Settings(server));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.failure_samples.at("http_status").substr(0, 8), "HTTP 500");
  std::string line = metrics::FailureSummary(r->summary);
  EXPECT_EQ(line.rfind("12 of 12 requests failed: 12 http_status (HTTP 500: ", 0), 0) << line;
  std::string table = metrics::FormatSummaryTable(r->summary, r->header);
  EXPECT_NE(table.find("  12 http_status (HTTP 500: "), std::string::npos) << table;
  const auto& samples = r->result.at("servebench").at("failure_samples").as_object();
  EXPECT_NE(std::string(samples.at("http_status").as_string()).find("injected failure"),
            std::string::npos);
}

TEST(RunBenchTest, UnreachableServerFailsBeforeRunning) {
  int port;
  {
    FakeOpenAiServer server;
    port = server.port();
  }
  BenchSettings s;
  s.base_url = "http://127.0.0.1:" + std::to_string(port);
  s.model = "m";
  auto r = RunBench(s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

TEST(RunBenchTest, CancelKeepsThePartialResultMarkedInterrupted) {
  FakeServerOptions o;
  o.event_interval_us = 50'000;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.num_prompts = 40;
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    cancel.store(true);
  });
  auto r = RunBench(b, &cancel);
  stopper.join();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->interrupted);
  EXPECT_EQ(r->exit_code(), kExitInterrupted);
  EXPECT_LT(r->summary.completed, 40);
  EXPECT_GT(r->summary.failures.at("cancelled"), 0);
  EXPECT_TRUE(
      r->result.at("servebench").as_object().at("run").as_object().at("interrupted").as_bool());
}

TEST(RunBenchTest, SpecAcceptanceComesFromMetricsCounterDeltas) {
  FakeServerOptions o;
  o.spec_counters = true;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.spec_decoding = true;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->summary.spec.has_value());
  EXPECT_NEAR(*r->summary.spec->acceptance_length, 2.8, 1e-9);
  EXPECT_NEAR(r->result.at("spec_decode_acceptance_rate").as_double(), 60.0, 1e-9);
  EXPECT_TRUE(r->summary.validity.valid());
}

// Coordinated omission (issue 4): 500 ms service, 10 req/s, concurrency 1, 8
// requests: request i is due at 0.1·i s but starts at 0.5·i s, so from-schedule
// E2EL averages 0.5 + 0.2·7 = 1.9 s while from-send E2EL stays 0.5 s.
TEST(RunBenchTest, FromScheduleLatencyExposesCoordinatedOmission) {
  FakeServerOptions o;
  o.first_token_delay_us = 250'000;
  o.event_interval_us = 250'000;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.num_prompts = 8;
  b.max_concurrency = 1;
  b.random_output_len = 2;
  b.request_rate_per_s = 10;
  b.arrival = ArrivalProcess::kConstant;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok());
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 8);
  EXPECT_NEAR(s.e2el.mean, 500, 25);
  EXPECT_NEAR(s.e2el_from_schedule.mean, 1900, 60);
  EXPECT_GT(s.client_queue_time.mean, 1000);
  EXPECT_LT(s.issue_delay.max, 50);
}

}  // namespace
}  // namespace servebench::client

namespace servebench::client {
namespace {

// On a flat load the busiest second carries about the mean rate (metrics.md §6):
// 4 streams of 40 tokens at 25 ms for 3 s.
TEST(RunBenchTest, PeakOutputRateIsCloseToTheMeanOnAFlatLoad) {
  FakeServerOptions o;
  o.event_interval_us = 25'000;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.num_prompts = 12;
  b.max_concurrency = 4;
  b.random_output_len = 40;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok());
  const metrics::RunSummary& s = r->summary;
  ASSERT_EQ(s.completed, 12);
  EXPECT_NEAR(s.max_output_tokens_per_s, s.output_throughput, 0.15 * s.output_throughput);
}

}  // namespace
}  // namespace servebench::client
