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
// Not thread-safe: one load worker's thread (the replay runs on one worker).
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "trace/trace.h"

namespace servebench::client {

class LaneSchedule {
 public:
  // Jobs are numbered tree by tree, conversation by conversation, turn by turn
  // (JobIndex); `speedup` divides every recorded delay.
  LaneSchedule(const trace::Trace& trace, int64_t lanes, double speedup);

  // The job number of a turn.
  size_t JobIndex(size_t tree, size_t conversation, size_t turn) const;
  size_t num_jobs() const { return num_jobs_; }

  // Starts the lanes at `start_ns` (monotonic): the first trees' root turns are due.
  void Start(int64_t start_ns);
  // Appends (job, release time) for every job released by `now_ns`; returns the
  // earliest later release time, or -1 when none is pending on a timer.
  int64_t TakeReady(int64_t now_ns, std::vector<std::pair<size_t, int64_t>>* ready);
  // Job `job` ended (completed or failed) at `t_done_ns`.
  void Done(size_t job, int64_t t_done_ns);
  // Every job of every tree has ended.
  bool finished() const { return ended_ == num_jobs_; }
  // Most trees live at once so far (a check on the lane rule).
  int64_t max_live_trees() const { return max_live_; }

 private:
  struct Conv {
    size_t next_turn = 0;
    int64_t release_ns = -1;  // when next_turn may go (-1: not yet known)
    bool in_flight = false;
    bool spawned = false;
    int64_t done_ns = -1;  // when its last turn ended
  };
  struct Tree {
    std::vector<Conv> convs;
    size_t ended = 0, total = 0;
    bool live = false;
  };
  void TakeTree(int64_t now_ns);
  // When the subagents joined by the next turn of conversation `c` of tree `t` have all
  // ended: their last end time, 0 when none is joined there, -1 while one still runs.
  int64_t JoinsEnded(size_t t, size_t c) const;
  int64_t DelayNs(int64_t ms) const;

  const trace::Trace& trace_;
  double speedup_;
  int64_t lanes_;
  std::vector<Tree> trees_;
  std::vector<size_t> first_job_;  // per tree
  std::vector<std::vector<size_t>> conv_first_job_;
  std::vector<std::pair<size_t, size_t>> job_conv_;  // job → (tree, conversation)
  size_t num_jobs_ = 0, ended_ = 0, next_tree_ = 0;
  int64_t live_ = 0, max_live_ = 0;
};

}  // namespace servebench::client
