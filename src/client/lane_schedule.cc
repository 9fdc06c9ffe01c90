#include "client/lane_schedule.h"

#include <algorithm>
#include <cmath>

#include "trace/hash_mix.h"

namespace servebench::client {
namespace {
LaneScheduleSettings Plain(int64_t lanes, double speedup) {
  LaneScheduleSettings s;
  s.lanes = lanes;
  s.speedup = speedup;
  return s;
}
}  // namespace

LaneSchedule::LaneSchedule(const trace::Trace& trace, int64_t lanes, double speedup)
    : LaneSchedule(trace, Plain(lanes, speedup)) {}

LaneSchedule::LaneSchedule(const trace::Trace& trace, const LaneScheduleSettings& settings)
    : trace_(trace), settings_(settings) {
  settings_.lanes = std::max<int64_t>(settings_.lanes, 1);
  trees_.resize(trace.trees.size());
  conv_first_job_.resize(trace.trees.size());
  for (size_t t = 0; t < trace.trees.size(); ++t) {
    const trace::TraceTree& tree = trace.trees[t];
    first_job_.push_back(num_jobs_);
    trees_[t].convs.resize(tree.conversations.size());
    for (size_t c = 0; c < tree.conversations.size(); ++c) {
      conv_first_job_[t].push_back(num_jobs_);
      const size_t turns = tree.conversations[c].turns.size();
      for (size_t k = 0; k < turns; ++k) job_conv_.emplace_back(t, c);
      num_jobs_ += turns;
      trees_[t].total += turns;
    }
  }
  job_warmup_.assign(num_jobs_, 0);
  PlanStarts();
}

void LaneSchedule::PlanStarts() {
  const bool draw = settings_.start_min_ratio || settings_.start_max_ratio;
  const double lo_ratio = settings_.start_min_ratio.value_or(0.0);
  const double hi_ratio = settings_.start_max_ratio.value_or(1.0);
  int64_t lane = 0;
  for (size_t t = 0; t < trees_.size() && lane < settings_.lanes; ++t) {
    Tree& tree = trees_[t];
    if (tree.total == 0) continue;  // TakeTree skips it too: lanes map to the same trees
    const std::vector<trace::TraceTurn>& root = trace_.trees[t].conversations[0].turns;
    const int64_t n = static_cast<int64_t>(root.size());
    int64_t k = 0;
    if (draw && n >= 2) {
      const int64_t lo = static_cast<int64_t>(std::ceil(lo_ratio * static_cast<double>(n)));
      const int64_t hi =
          std::min(static_cast<int64_t>(std::floor(hi_ratio * static_cast<double>(n))), n - 2);
      k = lo > hi ? hi
                  : lo + static_cast<int64_t>(
                             trace::MixInto(settings_.seed, static_cast<uint64_t>(lane) + 1) %
                             static_cast<uint64_t>(hi - lo + 1));
    }
    // At least one root turn is left to profile.
    const int64_t warm = n >= 2 ? std::min(settings_.warmup_per_lane, n - 1 - k) : 0;
    const int64_t first = k > 0 ? k - 1 : 0;  // the primer, or turn 0
    const int64_t profile = k + warm;
    start_turns_.push_back(k);
    profile_turns_.push_back(profile);
    tree.profile_turn = static_cast<size_t>(profile);
    tree.convs[0].next_turn = static_cast<size_t>(first);
    tree.ended += static_cast<size_t>(first);
    skipped_ += first;
    for (int64_t j = first; j < profile; ++j) {
      job_warmup_[JobIndex(t, 0, static_cast<size_t>(j))] = (k > 0 && j == k - 1) ? 2 : 1;
      ++num_warmup_;
    }
    if (k > 0) ++num_primers_;
    // Subagents spawned before the profiling start belong to the history.
    const trace::TraceTree& rtree = trace_.trees[t];
    for (size_t c = 1; c < rtree.conversations.size(); ++c) {
      const trace::TraceConversation& child = rtree.conversations[c];
      if (child.spawn_after_turn >= 0 && child.spawn_after_turn < profile) {
        tree.convs[c].skipped = true;
        tree.convs[c].done_ns = 0;  // its joins are met
        tree.ended += child.turns.size();
        skipped_ += static_cast<int64_t>(child.turns.size());
      }
    }
    ++lane;
  }
  ended_ = static_cast<size_t>(skipped_);
  warm_left_ = num_warmup_;
  warming_ = num_warmup_ > 0;
}

size_t LaneSchedule::JobIndex(size_t tree, size_t conversation, size_t turn) const {
  return conv_first_job_[tree][conversation] + turn;
}

int64_t LaneSchedule::DelayNs(int64_t ms) const {
  return static_cast<int64_t>(std::llround(static_cast<double>(ms) * 1e6 / settings_.speedup));
}

bool LaneSchedule::finished() const { return warming_ ? warm_left_ == 0 : ended_ == num_jobs_; }

void LaneSchedule::Start(int64_t start_ns) {
  system_idle_since_ns_ = start_ns;
  if (!started_) {
    started_ = true;
    for (int64_t lane = 0; lane < settings_.lanes; ++lane) TakeTree(start_ns);
    return;
  }
  // Profiling after the warm-up: each lane resumes its tree from its live state, the
  // next root turn waiting its recorded delay from now.
  for (size_t t = 0; t < trees_.size(); ++t) {
    Tree& tree = trees_[t];
    if (!tree.live) continue;
    tree.idle_since_ns = start_ns;
    Conv& root = tree.convs[0];
    const std::vector<trace::TraceTurn>& turns = trace_.trees[t].conversations[0].turns;
    if (!root.in_flight && root.next_turn < turns.size()) {
      root.release_ns =
          start_ns + (root.next_turn > 0 ? DelayNs(turns[root.next_turn].delay_ms) : 0);
    }
  }
}

void LaneSchedule::TakeTree(int64_t now_ns) {
  // A tree with no turns (none exist after loading) would never end; skip any.
  while (next_tree_ < trees_.size() && trees_[next_tree_].total == 0) ++next_tree_;
  if (next_tree_ >= trees_.size()) return;
  Tree& tree = trees_[next_tree_++];
  tree.live = true;
  tree.idle_since_ns = now_ns;
  max_live_ = std::max(max_live_, ++live_);
  tree.convs[0].spawned = true;
  // In the warm-up phase only a lane with warm-up turns starts; the rest wait for
  // profiling.
  const bool warm_turn = tree.convs[0].next_turn < tree.profile_turn;
  tree.convs[0].release_ns = !warming_ || warm_turn ? now_ns : -1;
}

int64_t LaneSchedule::JoinsEnded(size_t t, size_t c) const {
  const trace::TraceTree& tree = trace_.trees[t];
  const size_t turn = trees_[t].convs[c].next_turn;
  int64_t ended = 0;
  for (size_t k = 0; k < tree.conversations.size(); ++k) {
    const trace::TraceConversation& child = tree.conversations[k];
    if (child.parent != static_cast<int>(c) || child.join_before_turn != static_cast<int>(turn)) {
      continue;
    }
    const Conv& state = trees_[t].convs[k];
    if (state.done_ns < 0) return -1;
    ended = std::max(ended, state.done_ns);
  }
  return ended;
}

int64_t LaneSchedule::TakeReady(int64_t now_ns, std::vector<std::pair<size_t, int64_t>>* ready) {
  struct Candidate {
    size_t tree, conv;
    int64_t joins, release;
  };
  std::vector<Candidate> due;
  auto shift_tree = [&](size_t t, int64_t by) {
    for (Conv& conv : trees_[t].convs) {
      if (conv.spawned && !conv.skipped && !conv.in_flight && conv.release_ns >= 0) {
        conv.release_ns -= by;
      }
    }
    for (Candidate& x : due) {
      if (x.tree == t) x.release = std::max(trees_[t].convs[x.conv].release_ns, x.joins);
    }
  };
  int64_t earliest_all = -1;
  for (size_t t = 0; t < trees_.size(); ++t) {
    Tree& tree = trees_[t];
    if (!tree.live) continue;
    int64_t earliest = -1;
    for (size_t c = 0; c < tree.convs.size(); ++c) {
      Conv& conv = tree.convs[c];
      if (!conv.spawned || conv.skipped || conv.in_flight || conv.release_ns < 0 ||
          conv.next_turn >= trace_.trees[t].conversations[c].turns.size()) {
        continue;
      }
      if (warming_ && !is_warmup(JobIndex(t, c, conv.next_turn))) continue;
      const int64_t joins = JoinsEnded(t, c);
      if (joins < 0) continue;  // a joined subagent still runs; its end calls again
      const int64_t release = std::max(conv.release_ns, joins);
      due.push_back({t, c, joins, release});
      if (earliest < 0 || release < earliest) earliest = release;
    }
    // Per-tree idle cap: idle since idle_since_ns, its next turn is due at most the
    // cap later.
    if (settings_.tree_idle_cap_ns > 0 && tree.in_flight == 0 && earliest >= 0) {
      const int64_t limit = tree.idle_since_ns + settings_.tree_idle_cap_ns;
      if (earliest > limit) {
        shift_tree(t, earliest - limit);
        shifted_ns_ += earliest - limit;
        ++tree_shifts_;
        earliest = limit;
      }
    }
    if (earliest >= 0 && (earliest_all < 0 || earliest < earliest_all)) earliest_all = earliest;
  }
  // System idle cap: nothing in flight anywhere; every timer moves by one amount.
  if (settings_.system_idle_cap_ns > 0 && in_flight_ == 0 && earliest_all >= 0) {
    const int64_t limit = system_idle_since_ns_ + settings_.system_idle_cap_ns;
    if (earliest_all > limit) {
      const int64_t by = earliest_all - limit;
      for (size_t t = 0; t < trees_.size(); ++t) {
        if (trees_[t].live) shift_tree(t, by);
      }
      shifted_ns_ += by;
      ++system_shifts_;
    }
  }
  int64_t next = -1;
  for (const Candidate& x : due) {
    if (x.release <= now_ns) {
      Tree& tree = trees_[x.tree];
      Conv& conv = tree.convs[x.conv];
      conv.in_flight = true;
      ++tree.in_flight;
      ++in_flight_;
      ready->emplace_back(JobIndex(x.tree, x.conv, conv.next_turn), x.release);
    } else if (next < 0 || x.release < next) {
      next = x.release;
    }
  }
  return next;
}

void LaneSchedule::Done(size_t job, int64_t t_done_ns) {
  const auto [t, c] = job_conv_[job];
  Tree& tree = trees_[t];
  Conv& conv = tree.convs[c];
  const trace::TraceConversation& recorded = trace_.trees[t].conversations[c];
  const size_t turn = conv.next_turn++;
  conv.in_flight = false;
  if (--tree.in_flight == 0) tree.idle_since_ns = t_done_ns;
  if (--in_flight_ == 0) system_idle_since_ns_ = t_done_ns;
  if (is_warmup(job)) --warm_left_;
  ++ended_;
  ++tree.ended;
  if (conv.next_turn < recorded.turns.size()) {
    const size_t next_job = JobIndex(t, c, conv.next_turn);
    // Warm-up turns follow each other with no delay; the first profiled turn waits
    // for the profiling phase (Start).
    conv.release_ns = is_warmup(next_job) ? t_done_ns
                      : warming_          ? -1
                                 : t_done_ns + DelayNs(recorded.turns[conv.next_turn].delay_ms);
  } else {
    conv.done_ns = t_done_ns;
  }
  // Subagents spawned by this turn start their recorded offset after it.
  const trace::TraceTree& rtree = trace_.trees[t];
  for (size_t k = 0; k < rtree.conversations.size(); ++k) {
    const trace::TraceConversation& child = rtree.conversations[k];
    if (!tree.convs[k].skipped && child.parent == static_cast<int>(c) &&
        child.spawn_after_turn == static_cast<int>(turn)) {
      tree.convs[k].spawned = true;
      tree.convs[k].release_ns = t_done_ns + DelayNs(child.spawn_offset_ms);
    }
  }
  if (tree.ended == tree.total) {
    tree.live = false;
    --live_;
    TakeTree(t_done_ns);
  }
}

}  // namespace servebench::client
