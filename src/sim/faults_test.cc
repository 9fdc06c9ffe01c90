// Every fault flag of `servebench sim` has its effect, through real HTTP.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "sim/testing/sim_process.h"

namespace servebench::sim {
namespace {
namespace json = boost::json;
using testing::Http;
using testing::HttpResponse;
using testing::SimProcess;

const char* kStream = R"({"prompt":"a","max_tokens":20,"ignore_eos":true,"stream":true})";

TEST(SimFaultsTest, Http500RateOneFailsEveryGenerationRequest) {
  SimProcess sim({"--time-scale", "0", "--fault-http-500-rate", "1"});
  HttpResponse r = Http(sim.port(), "POST", "/v1/completions", kStream);
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("\"error\""), std::string::npos);
  EXPECT_EQ(Http(sim.port(), "GET", "/health").status, 200) << "only generation requests fail";
}

TEST(SimFaultsTest, Http500RateIsAFractionAndDeterministic) {
  auto count_failures = [] {
    SimProcess sim({"--time-scale", "0", "--fault-http-500-rate", "0.3", "--seed", "11"});
    std::vector<int> statuses;
    for (int i = 0; i < 60; ++i)
      statuses.push_back(
          Http(sim.port(), "POST", "/v1/completions", R"({"prompt":"a","max_tokens":1})").status);
    return statuses;
  };
  std::vector<int> a = count_failures(), b = count_failures();
  EXPECT_EQ(a, b) << "same seed, same failures";
  int failed = static_cast<int>(std::count(a.begin(), a.end(), 500));
  EXPECT_GT(failed, 5);
  EXPECT_LT(failed, 35);
}

TEST(SimFaultsTest, DisconnectAfterTokensDropsTheStream) {
  SimProcess sim({"--time-scale", "0", "--fault-disconnect-after-tokens", "5"});
  HttpResponse r = Http(sim.port(), "POST", "/v1/completions", kStream);
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.data_events.size(), 5u);
  for (const auto& e : r.data_events) EXPECT_NE(e, "[DONE]");
  EXPECT_EQ(Http(sim.port(), "GET", "/health").status, 200) << "the server keeps serving";
  HttpResponse m = Http(sim.port(), "GET", "/metrics");
  EXPECT_NE(m.body.find("finished_reason=\"abort\"} 1"), std::string::npos);
}

TEST(SimFaultsTest, StallHoldsEventsForTheGivenTime) {
  SimProcess sim(
      {"--time-scale", "0", "--fault-stall-ms", "300", "--fault-stall-after-tokens", "3"});
  HttpResponse r = Http(sim.port(), "POST", "/v1/completions", kStream);
  ASSERT_TRUE(r.complete);
  ASSERT_GE(r.event_times_ms.size(), 4u);
  double max_gap = 0;
  for (size_t i = 1; i < r.event_times_ms.size(); ++i)
    max_gap = std::max(max_gap, r.event_times_ms[i] - r.event_times_ms[i - 1]);
  EXPECT_GE(r.event_times_ms.back(), 290.0);
  EXPECT_GE(max_gap, 250.0);
  EXPECT_EQ(r.data_events.back(), "[DONE]");
}

TEST(SimFaultsTest, MalformedSseEventAppearsOnce) {
  SimProcess sim({"--time-scale", "0", "--fault-malformed-sse-rate", "1",
                  "--fault-malformed-after-tokens", "2"});
  HttpResponse r = Http(sim.port(), "POST", "/v1/completions", kStream);
  ASSERT_TRUE(r.complete);
  int bad = 0;
  for (const auto& e : r.data_events) {
    if (e == "[DONE]") continue;
    boost::system::error_code ec;
    json::parse(e, ec);
    if (ec) ++bad;
  }
  EXPECT_EQ(bad, 1);
}

TEST(SimFaultsTest, ReadyOnlyAfterDelay) {
  auto start = std::chrono::steady_clock::now();
  SimProcess sim({"--time-scale", "0", "--fault-ready-after-s", "1"}, /*wait_ready=*/false);
  ASSERT_GT(sim.port(), 0);
  EXPECT_EQ(Http(sim.port(), "GET", "/health").status, 503);
  EXPECT_EQ(Http(sim.port(), "POST", "/v1/completions", R"({"prompt":"a"})").status, 503);
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    status = Http(sim.port(), "GET", "/health").status;
  }
  EXPECT_EQ(status, 200);
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.95);
  EXPECT_NE(sim.output().find("servebench sim: ready"), std::string::npos);
}

TEST(SimFaultsTest, ExitAtStartupPrintsTheLineAndCode) {
  const std::string line =
      "Model does not support EAGLE3 interface but aux_hidden_state_outputs was requested";
  SimProcess sim({"--fault-exit-at-startup", line, "--fault-exit-code", "3"}, /*wait_ready=*/false);
  EXPECT_EQ(sim.WaitExit(10), 3);
  EXPECT_NE(sim.output().find(line), std::string::npos);
  EXPECT_EQ(sim.output().find("listening"), std::string::npos) << "never serves";
}

TEST(SimFaultsTest, CrashAfterRequests) {
  SimProcess sim(
      {"--time-scale", "0", "--fault-crash-after-requests", "2", "--fault-exit-code", "7"});
  EXPECT_EQ(Http(sim.port(), "POST", "/v1/completions", R"({"prompt":"a","max_tokens":2})").status,
            200);
  EXPECT_EQ(Http(sim.port(), "POST", "/v1/completions", R"({"prompt":"a","max_tokens":2})").status,
            200);
  HttpResponse third =
      Http(sim.port(), "POST", "/v1/completions", R"({"prompt":"a","max_tokens":2})", 5);
  EXPECT_EQ(third.status, 0);
  EXPECT_EQ(sim.WaitExit(10), 7);
  EXPECT_NE(sim.output().find("simulated crash after 2 requests"), std::string::npos);
}

TEST(SimFaultsTest, UnknownFlagIsRejectedWithUsageCode) {
  SimProcess sim({"--no-such-flag", "1"}, /*wait_ready=*/false);
  EXPECT_EQ(sim.WaitExit(10), 64);
  EXPECT_NE(sim.output().find("no-such-flag"), std::string::npos);
}

}  // namespace
}  // namespace servebench::sim
