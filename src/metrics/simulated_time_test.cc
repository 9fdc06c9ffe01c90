#include "metrics/simulated_time.h"

#include <gtest/gtest.h>

#include "metrics/run_summary.h"

namespace servebench::metrics {
namespace {

// A request of one slot: wall times from the client, simulated stamps from the server.
RequestRecord Stamped(int64_t index, int64_t scheduled, int64_t sent, int64_t done,
                      int64_t arrival_stamp, std::vector<std::pair<int64_t, int64_t>> events,
                      double scale) {
  RequestRecord r;
  r.index = index;
  r.t_scheduled_ns = scheduled;
  r.t_sent_ns = sent;
  r.t_done_ns = done;
  r.sim_arrival_ns = arrival_stamp;
  r.sim_time_scale = scale;
  r.max_tokens = static_cast<int64_t>(events.size());
  r.usage_completion_tokens = static_cast<int64_t>(events.size());
  for (auto [wall, stamp] : events) r.events.push_back({wall, 1, kChannelContent, stamp});
  r.t_first_token_ns = r.events.front().t_ns;
  r.t_last_token_ns = r.events.back().t_ns;
  return r;
}

TEST(SimulatedTimeTest, RecordsWithoutServerStampsStayWallClock) {
  RequestRecord r;
  r.t_sent_ns = 10;
  r.events.push_back({20, 1});
  EXPECT_FALSE(ToSimulatedTime({r}, 0).has_value());
}

TEST(SimulatedTimeTest, StampsReplaceClientTimesAndASlotHandsOnInSimulatedTime) {
  // Time scale 0.5 with the server's clock at 0 at wall 0: simulated = 2 x wall.
  // Request 1 is due at wall 1,000, sent at 1,100 and, opening a connection, reaches
  // the server 200 ns later (stamp 2,600); its tokens are made at stamps 6,000 and
  // 7,000 and read at wall 3,010 and 3,510. Request 2 takes the slot when request 1
  // ended (wall 3,510), is sent at 3,550 and arrives 50 ns later (stamp 7,200).
  RequestRecord a = Stamped(0, 1000, 1100, 3510, 2600, {{3010, 6000}, {3510, 7000}}, 0.5);
  RequestRecord b = Stamped(1, 3510, 3550, 4510, 7200, {{4010, 8000}, {4510, 9000}}, 0.5);
  auto view = ToSimulatedTime({a, b}, /*main_phase_start_ns=*/1000);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->time_scale, 0.5);
  // Client times map through the least-delayed request (request 2): 7,200 + (t −
  // 3,550) / 0.5, so the start is 2,100. Through request 1 it would be 2,400: its
  // connect, doubled by the scale, would shift every mapped time.
  EXPECT_EQ(view->main_phase_start_ns, 2100);
  const RequestRecord& a2 = view->records[0];
  EXPECT_EQ(a2.t_scheduled_ns, 2100);
  EXPECT_EQ(a2.t_sent_ns, 2600);
  EXPECT_EQ(a2.t_first_token_ns, 6000);
  EXPECT_EQ(a2.t_last_token_ns, 7000);
  EXPECT_EQ(a2.t_done_ns, 7000);
  const RequestRecord& b2 = view->records[1];
  EXPECT_EQ(b2.t_scheduled_ns, 7000) << "the slot came free when request 1's last token was made";
  EXPECT_EQ(b2.t_sent_ns, 7200);
  EXPECT_EQ(b2.events[0].t_ns, 8000);

  // The summary of the view is in simulated time: TTFTs 3,400 and 800 ns, issue
  // delays 500 and 200 ns, duration from 2,100 to 9,000.
  SummaryInputs in;
  in.requested_prompts = 2;
  in.main_phase_start_ns = view->main_phase_start_ns;
  in.client_issue_delay_limit_ms = 1e9;
  RunSummary s = ComputeRunSummary(view->records, in);
  EXPECT_EQ(s.completed, 2);
  EXPECT_NEAR(s.ttft.median, 0.0021, 1e-12);
  EXPECT_NEAR(s.issue_delay.max, 0.0005, 1e-12);
  EXPECT_NEAR(s.duration_s, 6900e-9, 1e-15);
}

TEST(SimulatedTimeTest, ARequestTheServerNeverStampedMapsThroughTheAnchor) {
  RequestRecord a = Stamped(0, 1000, 1000, 5000, 2000, {{3000, 2500}}, 0.1);
  RequestRecord failed;
  failed.index = 1;
  failed.t_scheduled_ns = 1000;
  failed.t_sent_ns = 1010;
  failed.t_done_ns = 1110;
  failed.failure = FailureKind::kHttpStatus;
  failed.error = "HTTP 500";
  auto view = ToSimulatedTime({a, failed}, 1000);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->records[1].t_sent_ns, 2000 + 100);
  EXPECT_EQ(view->records[1].t_done_ns, 2000 + 1100);
}

TEST(SimulatedTimeTest, AtTimeScaleZeroOnlyTheServersStepsTakeTime) {
  RequestRecord a = Stamped(0, 1000, 1200, 5000, 300, {{3000, 700}}, 0);
  RequestRecord b = Stamped(1, 1000, 1500, 5000, 900, {{3000, 1300}}, 0);
  auto view = ToSimulatedTime({a, b}, 1000);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->main_phase_start_ns, 300);
  EXPECT_EQ(view->records[1].t_scheduled_ns, 300);
  EXPECT_EQ(view->records[1].t_sent_ns, 900) << "it reached the server 600 ns of steps later";
}

}  // namespace
}  // namespace servebench::metrics
