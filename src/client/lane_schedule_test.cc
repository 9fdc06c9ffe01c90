#include "client/lane_schedule.h"

#include <gtest/gtest.h>

namespace servebench::client {
namespace {

using Ready = std::vector<std::pair<size_t, int64_t>>;

trace::TraceTurn Turn(int64_t delay_ms) {
  trace::TraceTurn turn;
  turn.delay_ms = delay_ms;
  turn.input_tokens = 10;
  turn.output_tokens = 1;
  return turn;
}

trace::TraceTree Chain(std::vector<int64_t> delays_ms) {
  trace::TraceTree tree;
  tree.conversations.emplace_back();
  for (int64_t d : delays_ms) tree.conversations[0].turns.push_back(Turn(d));
  return tree;
}

constexpr int64_t kMs = 1'000'000;

TEST(LaneScheduleTest, ALaneTakesTheNextTreeOnlyWhenItsTreeHasEnded) {
  trace::Trace trace;
  trace.trees = {Chain({0, 0}), Chain({0})};
  LaneSchedule lanes(trace, /*lanes=*/1, /*speedup=*/1);
  lanes.Start(0);
  Ready ready;
  lanes.TakeReady(0, &ready);
  ASSERT_EQ(ready, (Ready{{0, 0}}));  // tree 0, turn 0 only
  lanes.Done(0, 5 * kMs);
  ready.clear();
  lanes.TakeReady(5 * kMs, &ready);
  ASSERT_EQ(ready, (Ready{{1, 5 * kMs}}));  // tree 0, turn 1; tree 1 still waits
  lanes.Done(1, 9 * kMs);
  ready.clear();
  lanes.TakeReady(9 * kMs, &ready);
  EXPECT_EQ(ready, (Ready{{2, 9 * kMs}}));
  lanes.Done(2, 10 * kMs);
  EXPECT_TRUE(lanes.finished());
  EXPECT_EQ(lanes.max_live_trees(), 1);
}

TEST(LaneScheduleTest, ATurnWaitsItsEndToStartDelayDividedByTheSpeedup) {
  trace::Trace trace;
  trace.trees = {Chain({0, 400})};
  LaneSchedule lanes(trace, 1, /*speedup=*/10);
  lanes.Start(0);
  Ready ready;
  lanes.TakeReady(0, &ready);
  lanes.Done(0, 100 * kMs);
  ready.clear();
  EXPECT_EQ(lanes.TakeReady(120 * kMs, &ready), 140 * kMs);  // due 40 ms after the end
  EXPECT_TRUE(ready.empty());
  lanes.TakeReady(141 * kMs, &ready);
  EXPECT_EQ(ready, (Ready{{1, 140 * kMs}}));  // released at its due time, sent late
}

TEST(LaneScheduleTest, ASubagentStartsAfterItsSpawnAndItsJoinWaitsForIt) {
  trace::Trace trace;
  trace::TraceTree tree = Chain({0, 0});
  trace::TraceConversation child;
  child.parent = 0;
  child.spawn_after_turn = 0;
  child.join_before_turn = 1;
  child.spawn_offset_ms = 10;
  child.turns = {Turn(0), Turn(20)};
  tree.conversations.push_back(child);
  trace.trees = {tree};
  LaneSchedule lanes(trace, 1, 1);
  // Jobs: root 0, 1; child 2, 3.
  EXPECT_EQ(lanes.JobIndex(0, 1, 0), 2u);
  lanes.Start(0);
  Ready ready;
  lanes.TakeReady(0, &ready);
  lanes.Done(0, 100 * kMs);
  ready.clear();
  // The root's turn 1 joins the child: only the child's first turn can come, 10 ms on.
  EXPECT_EQ(lanes.TakeReady(100 * kMs, &ready), 110 * kMs);
  lanes.TakeReady(110 * kMs, &ready);
  ASSERT_EQ(ready, (Ready{{2, 110 * kMs}}));
  lanes.Done(2, 150 * kMs);
  ready.clear();
  lanes.TakeReady(170 * kMs, &ready);
  ASSERT_EQ(ready, (Ready{{3, 170 * kMs}}));
  lanes.Done(3, 200 * kMs);
  ready.clear();
  lanes.TakeReady(200 * kMs, &ready);
  EXPECT_EQ(ready, (Ready{{1, 200 * kMs}}));  // released by the child's end
}

TEST(LaneScheduleTest, NeverMoreLiveTreesThanLanes) {
  trace::Trace trace;
  for (int i = 0; i < 7; ++i) trace.trees.push_back(Chain({0, 0, 0}));
  LaneSchedule lanes(trace, /*lanes=*/3, 1);
  lanes.Start(0);
  int64_t now = 0;
  while (!lanes.finished()) {
    Ready ready;
    lanes.TakeReady(now, &ready);
    ASSERT_FALSE(ready.empty());
    now += kMs;
    for (const auto& [job, release] : ready) lanes.Done(job, now);
  }
  EXPECT_EQ(lanes.max_live_trees(), 3);
}

}  // namespace
}  // namespace servebench::client
