#include "client/lane_schedule.h"

#include <algorithm>
#include <cmath>

namespace servebench::client {

LaneSchedule::LaneSchedule(const trace::Trace& trace, int64_t lanes, double speedup)
    : trace_(trace), speedup_(speedup), lanes_(std::max<int64_t>(lanes, 1)) {
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
}

size_t LaneSchedule::JobIndex(size_t tree, size_t conversation, size_t turn) const {
  return conv_first_job_[tree][conversation] + turn;
}

int64_t LaneSchedule::DelayNs(int64_t ms) const {
  return static_cast<int64_t>(std::llround(static_cast<double>(ms) * 1e6 / speedup_));
}

void LaneSchedule::Start(int64_t start_ns) {
  for (int64_t lane = 0; lane < lanes_; ++lane) TakeTree(start_ns);
}

void LaneSchedule::TakeTree(int64_t now_ns) {
  // A tree with no turns (none exist after loading) would never end; skip any.
  while (next_tree_ < trees_.size() && trees_[next_tree_].total == 0) ++next_tree_;
  if (next_tree_ >= trees_.size()) return;
  Tree& tree = trees_[next_tree_++];
  tree.live = true;
  max_live_ = std::max(max_live_, ++live_);
  tree.convs[0].spawned = true;
  tree.convs[0].release_ns = now_ns;
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
  int64_t next = -1;
  for (size_t t = 0; t < trees_.size(); ++t) {
    if (!trees_[t].live) continue;
    for (size_t c = 0; c < trees_[t].convs.size(); ++c) {
      Conv& conv = trees_[t].convs[c];
      if (!conv.spawned || conv.in_flight || conv.release_ns < 0 ||
          conv.next_turn >= trace_.trees[t].conversations[c].turns.size()) {
        continue;
      }
      const int64_t joins = JoinsEnded(t, c);
      if (joins < 0) continue;  // a joined subagent still runs; its end calls again
      const int64_t release = std::max(conv.release_ns, joins);
      if (release <= now_ns) {
        conv.in_flight = true;
        ready->emplace_back(JobIndex(t, c, conv.next_turn), release);
      } else if (next < 0 || release < next) {
        next = release;
      }
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
  ++ended_;
  ++tree.ended;
  if (conv.next_turn < recorded.turns.size()) {
    conv.release_ns = t_done_ns + DelayNs(recorded.turns[conv.next_turn].delay_ms);
  } else {
    conv.done_ns = t_done_ns;
  }
  // Subagents spawned by this turn start their recorded offset after it.
  const trace::TraceTree& rtree = trace_.trees[t];
  for (size_t k = 0; k < rtree.conversations.size(); ++k) {
    const trace::TraceConversation& child = rtree.conversations[k];
    if (child.parent == static_cast<int>(c) && child.spawn_after_turn == static_cast<int>(turn)) {
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
