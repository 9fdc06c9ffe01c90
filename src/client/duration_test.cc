// Duration-bounded runs (BenchSettings::duration_s, grace_period_s) over real loopback
// HTTP against the in-test fake server: what is issued inside the window, what the
// grace period lets finish, and what is cut and counted.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "client/client.h"
#include "common/exit_codes.h"
#include "net/testing/fake_openai_server.h"

namespace servebench::client {
namespace {

using net::testing::FakeOpenAiServer;
using net::testing::FakeServerOptions;

constexpr int64_t kMs = 1'000'000;

BenchSettings Settings(const FakeOpenAiServer& server) {
  BenchSettings s;
  s.base_url = server.base_url();
  s.model = "fake";
  s.num_prompts = 1000;
  s.max_concurrency = 4;
  s.random_input_len = 16;
  s.random_output_len = 8;
  s.ignore_eos = true;
  s.request_timeout_s = 30;
  s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  return s;
}

const boost::json::object& RunObject(const BenchResult& r) {
  return r.result.at("servebench").as_object().at("run").as_object();
}

std::vector<const metrics::RequestRecord*> Measured(const BenchResult& r) {
  std::vector<const metrics::RequestRecord*> out;
  for (const metrics::RequestRecord& rec : r.records) {
    if (!rec.warmup) out.push_back(&rec);
  }
  return out;
}

// 4 loops of ~80 ms requests for 0.5 s: nothing is released at or after the end, the
// requests in flight at the end finish inside the grace period, and the run is valid.
TEST(DurationTest, ClosedLoopStopsIssuingAtTheEndAndLetsInFlightRequestsFinish) {
  FakeServerOptions o;
  o.event_interval_us = 10'000;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.duration_s = 0.5;
  b.grace_period_s = 10;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  int64_t end = s.main_phase_start_ns + 500 * kMs;
  std::vector<const metrics::RequestRecord*> measured = Measured(*r);
  bool finished_in_grace = false;
  for (const metrics::RequestRecord* rec : measured) {
    EXPECT_LT(rec->t_scheduled_ns, end) << "request " << rec->index;
    EXPECT_TRUE(rec->ok()) << rec->error;
    finished_in_grace = finished_in_grace || rec->t_done_ns > end;
  }
  EXPECT_TRUE(finished_in_grace);
  EXPECT_GT(s.completed, 8);
  EXPECT_LT(s.completed, 1000);
  EXPECT_EQ(s.completed, static_cast<int64_t>(measured.size()));
  EXPECT_EQ(s.failed, 0);
  EXPECT_TRUE(s.validity.valid()) << s.validity.issues.front().detail;
  EXPECT_EQ(r->exit_code(), kExitOk);
  EXPECT_EQ(RunObject(*r).at("ended_by").as_string(), "duration");
  EXPECT_EQ(RunObject(*r).at("requests_offered").as_int64(), s.completed);
  EXPECT_DOUBLE_EQ(RunObject(*r).at("duration_s").as_double(), 0.5);
}

// Requests of ~2 s, a 0.2 s window and 0.2 s of grace: the three in flight are cut
// at 0.4 s, recorded as cut_at_end with their partial streams, and the run is invalid.
TEST(DurationTest, GraceEndCutsRequestsStillInFlightAndCountsThem) {
  FakeServerOptions o;
  o.event_interval_us = 250'000;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.max_concurrency = 3;
  b.duration_s = 0.2;
  b.grace_period_s = 0.2;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  std::vector<const metrics::RequestRecord*> measured = Measured(*r);
  ASSERT_EQ(measured.size(), 3u);
  int64_t cut_at = s.main_phase_start_ns + 400 * kMs;
  for (const metrics::RequestRecord* rec : measured) {
    EXPECT_EQ(rec->failure, metrics::FailureKind::kCutAtEnd);
    EXPECT_NE(rec->error.find("--grace-period"), std::string::npos) << rec->error;
    EXPECT_GE(rec->t_done_ns, cut_at);
    EXPECT_LT(rec->t_done_ns, cut_at + 200 * kMs);
    EXPECT_GE(rec->t_sent_ns, 0);
  }
  EXPECT_EQ(s.failed, 3);
  EXPECT_EQ(s.failures.at("cut_at_end"), 3);
  EXPECT_FALSE(s.validity.valid());
  EXPECT_EQ(r->exit_code(), kExitRunInvalid);
  EXPECT_EQ(RunObject(*r).at("requests_offered").as_int64(), 3);
  EXPECT_EQ(r->result.at("failed").as_int64(), 3);
}

// 50 req/s on a constant schedule for 0.5 s: exactly the 25 arrivals before the end
// are sent (offsets 0, 20, ..., 480 ms), not the 1,000 prompts prepared.
TEST(DurationTest, OpenLoopSendsExactlyTheArrivalsInsideTheWindow) {
  FakeServerOptions o;
  o.event_interval_us = 1'000;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.max_concurrency = 0;
  b.num_prompts = 200;
  b.request_rate_per_s = 50;
  b.arrival = ArrivalProcess::kConstant;
  b.duration_s = 0.5;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, 25);
  EXPECT_TRUE(r->summary.validity.valid());
  EXPECT_EQ(RunObject(*r).at("ended_by").as_string(), "duration");
}

// An open loop capped at one in flight against 1 s requests: the arrivals that waited
// for the slot when the window closed are recorded unsent (t_sent -1) and cut, the
// one in flight is cut at the grace end; all 10 are counted.
TEST(DurationTest, ArrivalsStillWaitingForASlotAtTheEndAreCutUnsent) {
  FakeServerOptions o;
  o.first_token_delay_us = 1'000'000;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.max_concurrency = 1;
  b.request_rate_per_s = 50;
  b.arrival = ArrivalProcess::kConstant;
  b.duration_s = 0.2;
  b.grace_period_s = 0.1;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<const metrics::RequestRecord*> measured = Measured(*r);
  ASSERT_EQ(measured.size(), 10u);
  int unsent = 0;
  for (const metrics::RequestRecord* rec : measured) {
    EXPECT_EQ(rec->failure, metrics::FailureKind::kCutAtEnd) << rec->error;
    if (rec->t_sent_ns < 0) ++unsent;
  }
  EXPECT_EQ(unsent, 9);
  EXPECT_EQ(r->summary.failures.at("cut_at_end"), 10);
}

// Six prompts and a 30 s bound: the run ends when the prompts do and says so.
TEST(DurationTest, PromptsRunningOutFirstEndTheRunAndAreRecordedAsTheReason) {
  FakeServerOptions o;
  FakeOpenAiServer server(o);
  BenchSettings b = Settings(server);
  b.num_prompts = 6;
  b.duration_s = 30;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, 6);
  EXPECT_LT(r->summary.duration_s, 10);
  EXPECT_TRUE(r->summary.validity.valid());
  EXPECT_EQ(RunObject(*r).at("ended_by").as_string(), "prompts");
}

TEST(DurationTest, NegativeOrHugeBoundsAreRefusedNamingTheFlag) {
  BenchSettings b;
  b.model = "m";
  b.duration_s = -1;
  Status st = Validate(b);
  EXPECT_NE(st.message().find("--duration -1"), std::string::npos) << st.message();
  b.duration_s = 10;
  b.grace_period_s = 1e9;
  st = Validate(b);
  EXPECT_NE(st.message().find("--grace-period"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace servebench::client
