#include "client/lane_schedule.h"

#include <gtest/gtest.h>

#include "client/client_settings.h"

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

constexpr int64_t kS = 1'000'000'000;

TEST(LaneScheduleTest, TheTreeIdleCapReleasesTheNextTurnExactlyWhenTheTreeHasBeenIdleThatLong) {
  trace::Trace trace;
  trace::TraceTree tree = Chain({0, 100'000, 3'000});  // turn 1 waits 100 s, turn 2 3 s
  trace::TraceConversation child;  // a background subagent, 200 s after root turn 0
  child.parent = 0;
  child.spawn_after_turn = 0;
  child.spawn_offset_ms = 200'000;
  child.turns = {Turn(0)};
  tree.conversations.push_back(child);
  trace.trees = {tree};
  LaneScheduleSettings ls;
  ls.tree_idle_cap_ns = 10 * kS;
  LaneSchedule lanes(trace, ls);
  // Jobs: root 0, 1, 2; child 3.
  lanes.Start(0);
  Ready ready;
  lanes.TakeReady(0, &ready);
  lanes.Done(0, 1 * kS);
  ready.clear();
  // Idle from 1 s: root turn 1 (due 101 s) and the child (201 s) both move 90 s earlier.
  EXPECT_EQ(lanes.TakeReady(1 * kS, &ready), 11 * kS);
  EXPECT_TRUE(lanes.TakeReady(11 * kS - 1, &ready) == 11 * kS && ready.empty());
  lanes.TakeReady(11 * kS, &ready);
  ASSERT_EQ(ready, (Ready{{1, 11 * kS}}));
  EXPECT_EQ(lanes.tree_cap_shifts(), 1);
  lanes.Done(1, 12 * kS);
  ready.clear();
  // Turn 2's 3 s delay is under the cap: unchanged. The child, now due 111 s, waits.
  EXPECT_EQ(lanes.TakeReady(12 * kS, &ready), 15 * kS);
  lanes.TakeReady(15 * kS, &ready);
  ASSERT_EQ(ready, (Ready{{2, 15 * kS}}));
  lanes.Done(2, 16 * kS);
  ready.clear();
  // Idle again from 16 s: the child goes at 26 s, not 111 s.
  EXPECT_EQ(lanes.TakeReady(16 * kS, &ready), 26 * kS);
  lanes.TakeReady(26 * kS, &ready);
  EXPECT_EQ(ready, (Ready{{3, 26 * kS}}));
  EXPECT_EQ(lanes.tree_cap_shifts(), 2);
  EXPECT_EQ(lanes.shifted_ns(), 90 * kS + 85 * kS);
}

TEST(LaneScheduleTest, TheTreeIdleCapWaitsWhileTheTreeHasARequestInFlight) {
  trace::Trace trace;
  trace::TraceTree tree = Chain({0, 100'000});
  trace::TraceConversation child;  // spawned with root turn 0, runs 50 s
  child.parent = 0;
  child.spawn_after_turn = 0;
  child.turns = {Turn(0)};
  tree.conversations.push_back(child);
  trace.trees = {tree};
  LaneScheduleSettings ls;
  ls.tree_idle_cap_ns = 10 * kS;
  LaneSchedule lanes(trace, ls);
  lanes.Start(0);
  Ready ready;
  lanes.TakeReady(0, &ready);
  lanes.Done(0, 1 * kS);
  ready.clear();
  lanes.TakeReady(1 * kS, &ready);
  ASSERT_EQ(ready, (Ready{{2, 1 * kS}}));  // the child runs from 1 s ...
  ready.clear();
  EXPECT_EQ(lanes.TakeReady(30 * kS, &ready), 101 * kS);  // ... so nothing moves
  lanes.Done(2, 51 * kS);
  EXPECT_EQ(lanes.TakeReady(51 * kS, &ready), 61 * kS);  // idle from 51 s
  EXPECT_EQ(lanes.tree_cap_shifts(), 1);
}

TEST(LaneScheduleTest, TheSystemIdleCapShiftsEveryTimerByTheSameAmount) {
  trace::Trace trace;
  trace.trees = {Chain({0, 100'000}), Chain({0, 50'000})};
  LaneScheduleSettings ls;
  ls.lanes = 2;
  ls.system_idle_cap_ns = 10 * kS;
  LaneSchedule lanes(trace, ls);
  // Jobs: tree 0: 0, 1; tree 1: 2, 3.
  lanes.Start(0);
  Ready ready;
  lanes.TakeReady(0, &ready);
  ASSERT_EQ(ready.size(), 2u);
  lanes.Done(0, 1 * kS);
  ready.clear();
  EXPECT_EQ(lanes.TakeReady(1 * kS, &ready), 101 * kS);  // tree 1 still in flight
  lanes.Done(2, 2 * kS);
  // Nothing in flight from 2 s: due 101 s and 52 s, both move 40 s earlier.
  EXPECT_EQ(lanes.TakeReady(2 * kS, &ready), 12 * kS);
  EXPECT_TRUE(ready.empty());
  lanes.TakeReady(12 * kS, &ready);
  ASSERT_EQ(ready, (Ready{{3, 12 * kS}}));
  ready.clear();
  EXPECT_EQ(lanes.TakeReady(12 * kS, &ready), 61 * kS);  // 101 − 40: the same amount
  EXPECT_EQ(lanes.system_cap_shifts(), 1);
  EXPECT_EQ(lanes.shifted_ns(), 40 * kS);
}

trace::Trace Trees(int count, int turns, int64_t delay_ms) {
  trace::Trace trace;
  std::vector<int64_t> delays(static_cast<size_t>(turns), delay_ms);
  delays[0] = 0;
  for (int i = 0; i < count; ++i) trace.trees.push_back(Chain(delays));
  return trace;
}

TEST(LaneScheduleTest, StartTurnsLieInTheWindowAndTheSeedReproducesThem) {
  const trace::Trace trace = Trees(12, 20, 0);
  LaneScheduleSettings ls;
  ls.lanes = 8;
  ls.start_min_ratio = 0.25;
  ls.start_max_ratio = 0.75;
  ls.seed = 7;
  const LaneSchedule a(trace, ls), b(trace, ls);
  ASSERT_EQ(a.start_turns().size(), 8u);
  int64_t skipped = 0;
  for (int64_t k : a.start_turns()) {
    EXPECT_GE(k, 5);   // ⌈0.25 · 20⌉
    EXPECT_LE(k, 15);  // min(⌊0.75 · 20⌋, 18)
    skipped += k - 1;  // turns before the primer
  }
  EXPECT_EQ(a.start_turns(), b.start_turns());
  EXPECT_EQ(a.skipped_turns(), skipped);
  EXPECT_EQ(a.num_primers(), 8);
  ls.seed = 8;
  EXPECT_NE(LaneSchedule(trace, ls).start_turns(), a.start_turns());
  // The window's top is n − 2: one turn is always left to profile.
  ls.start_min_ratio = 0.9;
  ls.start_max_ratio = 1.0;
  const LaneSchedule top(trace, ls);
  for (int64_t k : top.start_turns()) EXPECT_EQ(k, 18);
  // Unset: every lane at turn 0, nothing skipped, no warm-up.
  const LaneSchedule plain(trace, LaneScheduleSettings{});
  EXPECT_EQ(plain.start_turns(), std::vector<int64_t>{0});
  EXPECT_FALSE(plain.warming_up());
}

TEST(LaneScheduleTest, WarmUpIsOnePrimerPerStartedLaneThenNOneTurnRequestsWithNoDelay) {
  const trace::Trace trace = Trees(5, 20, /*delay_ms=*/5'000);
  LaneScheduleSettings ls;
  ls.lanes = 3;
  ls.start_min_ratio = 0.25;
  ls.start_max_ratio = 0.75;
  ls.seed = 3;
  ls.warmup_per_lane = 4;
  LaneSchedule lanes(trace, ls);
  ASSERT_TRUE(lanes.warming_up());
  EXPECT_EQ(lanes.num_warmup_jobs(), 3 + 3 * 4);
  for (size_t lane = 0; lane < 3; ++lane) {
    const int64_t k = lanes.start_turns()[lane];
    EXPECT_EQ(lanes.profile_turns()[lane], k + 4);
    EXPECT_TRUE(lanes.is_primer(lanes.JobIndex(lane, 0, static_cast<size_t>(k - 1))));
    for (int64_t j = k; j < k + 4; ++j) {
      EXPECT_TRUE(lanes.is_warmup(lanes.JobIndex(lane, 0, static_cast<size_t>(j))));
    }
    EXPECT_FALSE(lanes.is_warmup(lanes.JobIndex(lane, 0, static_cast<size_t>(k + 4))));
  }
  // The warm-up phase: only warm-up jobs, each released when the one before ends.
  lanes.Start(0);
  int64_t now = 0, warm = 0;
  while (!lanes.finished()) {
    Ready ready;
    EXPECT_EQ(lanes.TakeReady(now, &ready), -1);  // no timers: no delays in warm-up
    ASSERT_FALSE(ready.empty());
    now += kMs;
    for (const auto& [job, release] : ready) {
      EXPECT_TRUE(lanes.is_warmup(job));
      EXPECT_EQ(release, now - kMs);
      ++warm;
      lanes.Done(job, now);
    }
  }
  EXPECT_EQ(warm, 15);
  // Profiling resumes each lane at turn k + 4, its recorded 5 s after the start.
  lanes.EndWarmup();
  const int64_t start = 100 * kS;
  lanes.Start(start);
  Ready first;
  EXPECT_EQ(lanes.TakeReady(start, &first), start + 5 * kS);
  lanes.TakeReady(start + 5 * kS, &first);
  ASSERT_EQ(first.size(), 3u);
  for (size_t lane = 0; lane < 3; ++lane) {
    EXPECT_EQ(first[lane].first,
              lanes.JobIndex(lane, 0, static_cast<size_t>(lanes.profile_turns()[lane])));
  }
  // The rest of the replay: no warm-up job again; later trees from turn 0.
  now = start + 5 * kS;
  int64_t profiled = 0;
  Ready ready = first;
  while (!lanes.finished()) {
    for (const auto& [job, release] : ready) {
      EXPECT_FALSE(lanes.is_warmup(job));
      ++profiled;
      lanes.Done(job, now);
    }
    if (lanes.finished()) break;
    ready.clear();
    const int64_t next = lanes.TakeReady(now, &ready);
    if (ready.empty()) {
      ASSERT_GE(next, 0);
      now = next;
      lanes.TakeReady(now, &ready);
    }
  }
  int64_t expected = 2 * 20;  // trees 3 and 4, whole
  for (int64_t p : lanes.profile_turns()) expected += 20 - p;
  EXPECT_EQ(profiled, expected);
}

TEST(LaneScheduleTest, WarmUpWithoutStartPositionsPlaysTheFirstNTurnsOfEachLane) {
  const trace::Trace trace = Trees(2, 6, 1'000);
  LaneScheduleSettings ls;
  ls.lanes = 2;
  ls.warmup_per_lane = 10;  // capped: one turn is left to profile
  LaneSchedule lanes(trace, ls);
  EXPECT_EQ(lanes.num_primers(), 0);
  EXPECT_EQ(lanes.num_warmup_jobs(), 2 * 5);
  EXPECT_EQ(lanes.profile_turns(), (std::vector<int64_t>{5, 5}));
  EXPECT_TRUE(lanes.is_warmup(lanes.JobIndex(0, 0, 0)));
  EXPECT_FALSE(lanes.is_primer(lanes.JobIndex(0, 0, 0)));
}

// The lanes' flags (BenchSettings) are refused outside closed-loop lanes, naming the
// flag and its value, and out of range with the range.
TEST(LaneScheduleTest, LaneFlagsAreRefusedWithoutLanesAndOutOfRange) {
  BenchSettings lanes;
  lanes.base_url = "http://127.0.0.1:1";
  lanes.model = "m";
  lanes.dataset_name = "weka_trace";
  lanes.dataset_path = "t.jsonl";
  lanes.max_concurrency = 4;
  lanes.trace_idle_gap_cap_s = 300;
  lanes.system_idle_gap_cap_s = 10;
  lanes.trajectory_start_min_ratio = 0.25;
  lanes.trajectory_start_max_ratio = 0.75;
  lanes.warmup_requests_per_lane = 10;
  EXPECT_TRUE(Validate(lanes).ok()) << Validate(lanes).ToString();  // InferenceX's values
  auto error = [](const BenchSettings& s) { return std::string(Validate(s).message()); };
  BenchSettings fixed = lanes;
  fixed.fixed_schedule = true;
  EXPECT_NE(error(fixed).find("--trace-idle-gap-cap-seconds 300: only for a closed-loop"),
            std::string::npos)
      << error(fixed);
  BenchSettings random;
  random.base_url = lanes.base_url;
  random.model = "m";
  random.warmup_requests_per_lane = 2;
  EXPECT_NE(error(random).find("--warmup-requests-per-lane 2: only for a closed-loop"),
            std::string::npos)
      << error(random);
  BenchSettings ratio = lanes;
  ratio.trajectory_start_max_ratio = 1.5;
  EXPECT_NE(error(ratio).find("--trajectory-start-max-ratio 1.5: must be in [0, 1]"),
            std::string::npos)
      << error(ratio);
  ratio.trajectory_start_max_ratio = 0.1;
  EXPECT_NE(error(ratio).find("--trajectory-start-min-ratio 0.25 is above"), std::string::npos)
      << error(ratio);
  BenchSettings warmups = lanes;
  warmups.num_warmups = 5;  // still refused with a trace
  EXPECT_NE(error(warmups).find("--num-warmups 5 with --dataset-name weka_trace"),
            std::string::npos)
      << error(warmups);
}

}  // namespace
}  // namespace servebench::client
