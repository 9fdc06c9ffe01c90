// LaneSchedule: closed-loop agentic replay of a trace (reference agentic.md §3), as
// the release rule a load worker asks before starting each request. `lanes` trees are
// live at once (--max-concurrency counts trees, not requests); a lane takes the next
// tree, in trace order, only when every request of its current tree has ended, so
// in-flight requests may exceed the lane count when subagents fan out.
//
// Within a tree a turn is released when
//   - the previous turn of its conversation has ended, and its recorded end-to-start
//     delay ÷ --trace-speedup has passed since (the first turn of a root: when its
//     lane takes the tree);
//   - for a subagent's first turn: its spawning parent turn has ended, and the
//     recorded spawn offset ÷ speed-up has passed;
//   - every subagent joined by this turn has ended (a failed request releases what
//     waits on it, as AIPerf does unless AIPERF_DAG_FAIL_FAST).
// Each released request carries its release time as t_scheduled, so the client's
// lateness in sending it shows as issue delay.
//
// Idle caps (AIPerf's --trace-idle-gap-cap-seconds / --system-idle-gap-cap-seconds):
//   - per tree: once a live tree has had nothing in flight for `tree_idle_cap_ns`, its
//     pending timers all move earlier by one amount so its next due turn is released
//     exactly then (order, spawns and joins kept);
//   - system: when nothing is in flight in any lane, every pending timer of every live
//     tree moves earlier by one amount so the next turn is released at most
//     `system_idle_cap_ns` after the last request ended.
// Start positions and warm-up (AIPerf's --trajectory-start-*-ratio and
// --warmup-requests-per-lane): the first tree of each lane starts at root turn k drawn
// per lane; turns before k−1 are history, not sent; turn k−1 (the snapshot primer, when
// k > 0) and the next `warmup_per_lane` root turns are warm-up jobs, played in a
// warm-up phase of their own with no delays, then profiling resumes each lane at its
// next root turn (which waits its recorded delay from the profiling start). Subagents
// spawned by root turns before the profiling start are not replayed (their joins are
// met). A schedule with warm-up jobs starts in the warm-up phase: Start plays it,
// finished() says when it has drained, EndWarmup() switches to profiling, and the
// next Start starts the profiling phase.
// Not thread-safe: one load worker's thread (the replay runs on one worker).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "trace/trace.h"

namespace servebench::client {

struct LaneScheduleSettings {
  int64_t lanes = 1;     // live trees at once (--max-concurrency)
  double speedup = 1.0;  // recorded delays are divided by this (wall ns per recorded ns⁻¹)
  int64_t tree_idle_cap_ns = 0;    // per-tree idle cap; 0 = none
  int64_t system_idle_cap_ns = 0;  // system idle cap; 0 = none
  // The start window as fractions of the root's n turns: k uniform in
  // [⌈min·n⌉, min(⌊max·n⌋, n − 2)] (clamped to that upper bound; 0 when n < 2). Both
  // unset: every lane starts at turn 0. One unset: 0 (min) or 1 (max).
  std::optional<double> start_min_ratio, start_max_ratio;
  uint64_t seed = 0;            // draws the start turns
  int64_t warmup_per_lane = 0;  // one-token warm-up turns per lane after the primer
};

class LaneSchedule {
 public:
  // Jobs are numbered tree by tree, conversation by conversation, turn by turn
  // (JobIndex).
  LaneSchedule(const trace::Trace& trace, const LaneScheduleSettings& settings);
  // `speedup` divides every recorded delay; no caps, start at turn 0, no warm-up.
  LaneSchedule(const trace::Trace& trace, int64_t lanes, double speedup);

  // The job number of a turn.
  size_t JobIndex(size_t tree, size_t conversation, size_t turn) const;
  size_t num_jobs() const { return num_jobs_; }

  // Starts the current phase at `start_ns` (monotonic): the lanes take their first
  // trees (warm-up phase, or profiling without one), or profiling resumes them.
  void Start(int64_t start_ns);
  // Appends (job, release time) for every job released by `now_ns`; returns the
  // earliest later release time, or -1 when none is pending on a timer.
  int64_t TakeReady(int64_t now_ns, std::vector<std::pair<size_t, int64_t>>* ready);
  // Job `job` ended (completed or failed) at `t_done_ns`.
  void Done(size_t job, int64_t t_done_ns);
  // Warm-up phase: every warm-up job has ended. Profiling: every job of every tree has
  // ended (or was skipped by a start position).
  bool finished() const;
  // Most trees live at once so far (a check on the lane rule).
  int64_t max_live_trees() const { return max_live_; }

  // ---- Start positions and warm-up ----
  bool warming_up() const { return warming_; }
  void EndWarmup() { warming_ = false; }
  // Whether job `job` is a warm-up (primer or one of the N per lane), and a primer.
  bool is_warmup(size_t job) const { return job_warmup_[job] != 0; }
  bool is_primer(size_t job) const { return job_warmup_[job] == 2; }
  // Per lane: the root turn its first tree starts at (k) and the first profiled turn.
  const std::vector<int64_t>& start_turns() const { return start_turns_; }
  const std::vector<int64_t>& profile_turns() const { return profile_turns_; }
  int64_t num_warmup_jobs() const { return num_warmup_; }
  int64_t num_primers() const { return num_primers_; }
  int64_t skipped_turns() const { return skipped_; }  // history before the starts

  // ---- Idle caps: how often each moved timers, and by how much in all ----
  int64_t tree_cap_shifts() const { return tree_shifts_; }
  int64_t system_cap_shifts() const { return system_shifts_; }
  int64_t shifted_ns() const { return shifted_ns_; }

 private:
  struct Conv {
    size_t next_turn = 0;
    int64_t release_ns = -1;  // when next_turn may go (-1: not yet known)
    bool in_flight = false;
    bool spawned = false;
    bool skipped = false;  // history before a start position: never replayed
    int64_t done_ns = -1;  // when its last turn ended
  };
  struct Tree {
    std::vector<Conv> convs;
    size_t ended = 0, total = 0;
    bool live = false;
    int64_t in_flight = 0;
    int64_t idle_since_ns = 0;  // when in_flight last fell to 0 (or the tree was taken)
    size_t profile_turn = 0;    // the root turn profiling resumes at
  };
  void TakeTree(int64_t now_ns);
  // When the subagents joined by the next turn of conversation `c` of tree `t` have all
  // ended: their last end time, 0 when none is joined there, -1 while one still runs.
  int64_t JoinsEnded(size_t t, size_t c) const;
  int64_t DelayNs(int64_t ms) const;
  // Draws the lanes' start turns and marks the warm-up jobs (constructor).
  void PlanStarts();

  const trace::Trace& trace_;
  LaneScheduleSettings settings_;
  std::vector<Tree> trees_;
  std::vector<size_t> first_job_;  // per tree
  std::vector<std::vector<size_t>> conv_first_job_;
  std::vector<std::pair<size_t, size_t>> job_conv_;  // job → (tree, conversation)
  std::vector<uint8_t> job_warmup_;                  // per job: 0, 1 warm-up, 2 primer
  size_t num_jobs_ = 0, ended_ = 0, next_tree_ = 0;
  int64_t live_ = 0, max_live_ = 0;
  int64_t in_flight_ = 0, system_idle_since_ns_ = 0;
  bool started_ = false, warming_ = false;
  int64_t warm_left_ = 0;  // warm-up jobs not yet ended
  std::vector<int64_t> start_turns_, profile_turns_;
  int64_t num_warmup_ = 0, num_primers_ = 0, skipped_ = 0;
  int64_t tree_shifts_ = 0, system_shifts_ = 0, shifted_ns_ = 0;
};

}  // namespace servebench::client
