// Closed-loop lane replay (client/lane_schedule.h) bounded by --duration, over real
// loopback HTTP against net/'s fake server, whose streams send a token every 100 ms
// (n tokens take (n - 1) x 100 ms): the lanes release nothing at or after the
// duration's end, not even the successor of a turn that ends in the grace period, and
// the requests still in flight when the grace period ends are recorded and counted as
// cut by the client (cut_at_end), not dropped from the run.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "client/client.h"
#include "common/exit_codes.h"
#include "common/testing/files.h"
#include "net/testing/fake_openai_server.h"

namespace servebench::client {
namespace {

using net::testing::FakeOpenAiServer;
using net::testing::FakeServerOptions;

constexpr int64_t kMs = 1'000'000;

// Four Mooncake sessions of three turns (64-token blocks, each turn the previous
// one's history plus a block), with no delay between turns. Output tokens per turn:
// session 0 {2, 7, 2}, session 1 {2, 16, 2}, sessions 2 and 3 {2, 2, 2}.
std::string WriteSessions() {
  const std::string path = servebench::testing::FreshTestDir("lanes") + "/sessions.jsonl";
  std::ofstream out(path);
  const int outputs[4][3] = {{2, 7, 2}, {2, 16, 2}, {2, 2, 2}, {2, 2, 2}};
  for (int session = 0; session < 4; ++session) {
    for (int turn = 0; turn < 3; ++turn) {
      boost::json::array ids;
      for (int b = 0; b <= turn; ++b) ids.push_back(session * 100 + b);
      out << boost::json::serialize(
                 boost::json::object{{"session_id", "s" + std::to_string(session)},
                                     {"input_length", 64 * (turn + 1)},
                                     {"output_length", outputs[session][turn]},
                                     {"hash_ids", std::move(ids)}})
          << "\n";
    }
  }
  return path;
}

// Two lanes, a 0.5 s window and 0.5 s of grace. Turn 0 of sessions 0 and 1 ends at
// ~0.1 s and releases their turn 1. Session 0's ends at ~0.7 s, inside the grace
// period, and its turn 2 is not released; session 1's (~1.5 s) is cut at 1 s. No
// turn 2 and neither session 2 nor 3 is ever released: 4 requests, 1 of them cut.
TEST(LaneDurationTest, LanesStopReleasingAtTheEndAndCountRequestsCutInFlight) {
  FakeServerOptions o;
  o.event_interval_us = 100'000;
  FakeOpenAiServer server(o);
  BenchSettings b;
  b.base_url = server.base_url();
  b.model = "fake";
  b.dataset_name = "mooncake_trace";
  b.dataset_path = WriteSessions();
  b.trace_block_tokens = 64;
  b.max_concurrency = 2;  // lanes: live sessions
  b.ignore_eos = true;
  b.request_timeout_s = 30;
  b.duration_s = 0.5;
  b.grace_period_s = 0.5;
  b.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const metrics::RunSummary& s = r->summary;
  const int64_t end = s.main_phase_start_ns + 500 * kMs;
  const int64_t cut_at = end + 500 * kMs;
  int ok = 0, cut = 0, finished_in_grace = 0;
  for (const metrics::RequestRecord& rec : r->records) {
    ASSERT_FALSE(rec.warmup);
    EXPECT_LT(rec.t_scheduled_ns, end) << "request " << rec.index << " released after the end";
    EXPECT_GE(rec.t_sent_ns, 0) << "request " << rec.index << " released but never sent";
    if (rec.ok()) {
      ++ok;
      if (rec.t_done_ns > end) ++finished_in_grace;
    } else {
      ++cut;
      EXPECT_EQ(rec.failure, metrics::FailureKind::kCutAtEnd) << rec.error;
      EXPECT_NE(rec.error.find("--grace-period"), std::string::npos) << rec.error;
      EXPECT_GE(rec.t_done_ns, cut_at);
      EXPECT_GT(rec.events.size(), 0u) << "cut mid-stream, its partial stream kept";
    }
  }
  EXPECT_EQ(r->records.size(), 4u);
  EXPECT_EQ(ok, 3);
  EXPECT_EQ(finished_in_grace, 1) << "session 0's turn 1";
  EXPECT_EQ(cut, 1);
  EXPECT_EQ(s.completed, 3);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.failures.at("cut_at_end"), 1);
  EXPECT_FALSE(s.validity.valid());
  EXPECT_EQ(r->exit_code(), kExitRunInvalid);
  const boost::json::object& sb = r->result.at("servebench").as_object();
  EXPECT_EQ(sb.at("run").at("ended_by").as_string(), "duration");
  EXPECT_EQ(sb.at("run").at("requests_offered").as_int64(), 4);
  EXPECT_EQ(sb.at("trace").at("schedule").as_string(), "lanes");
  EXPECT_EQ(sb.at("trace").at("max_live_trees").to_number<int64_t>(), 2);
}

}  // namespace
}  // namespace servebench::client
