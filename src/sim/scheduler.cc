#include "sim/scheduler.h"

#include <algorithm>

namespace servebench::sim {

Scheduler::Scheduler(const SchedulerSettings& settings, const PerfModel* perf)
    : settings_(settings), perf_(perf) {
  double pool = perf->KvBudgetBytesPerGpu() * perf->settings().data_parallel;
  pool_bytes_ = pool > 0 ? static_cast<int64_t>(pool) : 0;
}

int64_t Scheduler::BlockBytes(int64_t tokens) const {
  int64_t b = settings_.block_size;
  return perf_->KvBytesPerGpu((tokens + b - 1) / b * b);
}

void Scheduler::Add(Sequence* seq) {
  seq->prefill_target = seq->prompt_tokens + seq->generated;
  seq->prefilled = 0;
  seq->context = 0;
  seq->kv_bytes = 0;
  seq->running = false;
  waiting_.push_back(seq);
}

void Scheduler::Release(Sequence* seq) {
  used_bytes_ -= seq->kv_bytes;
  seq->kv_bytes = 0;
  seq->context = 0;
}

void Scheduler::Remove(Sequence* seq) {
  Release(seq);
  if (seq->running) {
    running_.erase(std::remove(running_.begin(), running_.end(), seq), running_.end());
  } else {
    waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), seq), waiting_.end());
  }
  seq->running = false;
}

bool Scheduler::Reserve(Sequence* seq, int64_t context_after) {
  int64_t need = BlockBytes(context_after);
  int64_t extra = need - seq->kv_bytes;
  if (extra <= 0) return true;
  if (used_bytes_ + extra > pool_bytes_) return false;
  used_bytes_ += extra;
  seq->kv_bytes = need;
  return true;
}

void Scheduler::Preempt(Sequence* seq, StepPlan* plan) {
  Release(seq);
  seq->running = false;
  seq->prefill_target = seq->prompt_tokens + seq->generated;
  seq->prefilled = 0;
  ++seq->preemptions;
  ++preemptions_total_;
  running_.erase(std::remove(running_.begin(), running_.end(), seq), running_.end());
  waiting_.push_front(seq);
  plan->preempted.push_back(seq);
  // Drop any work already planned for it this step.
  plan->work.erase(std::remove_if(plan->work.begin(), plan->work.end(),
                                  [seq](const PlannedWork& w) { return w.seq == seq; }),
                   plan->work.end());
}

StepPlan Scheduler::Plan() {
  StepPlan plan;
  const int lookahead = 1 + settings_.num_speculative_tokens;
  int budget = settings_.max_num_batched_tokens;

  // 1. Running sequences, oldest first; the newest is the preemption victim.
  for (size_t i = 0; i < running_.size() && budget > 0;) {
    Sequence* seq = running_[i];
    int tokens =
        seq->in_prefill() ? std::min(budget, seq->prefill_target - seq->prefilled) : lookahead;
    if (!seq->in_prefill() && tokens > budget) break;
    bool reserved = Reserve(seq, seq->context + tokens);
    while (!reserved && running_.back() != seq) {
      Preempt(running_.back(), &plan);
      reserved = Reserve(seq, seq->context + tokens);
    }
    if (!reserved) {  // nothing left to preempt but itself
      Preempt(seq, &plan);
      continue;  // running_[i] is now the next sequence
    }
    plan.work.push_back({seq, seq->in_prefill() ? tokens : 0});
    budget -= tokens;
    ++i;
  }

  // 2. Waiting sequences, FIFO, while there is room.
  while (!waiting_.empty() && budget > 0 &&
         static_cast<int>(running_.size()) < settings_.max_num_seqs) {
    Sequence* seq = waiting_.front();
    // A sequence preempted in this very step waits for the next one.
    if (std::find(plan.preempted.begin(), plan.preempted.end(), seq) != plan.preempted.end()) break;
    int tokens = std::min(budget, seq->prefill_target - seq->prefilled);
    if (!Reserve(seq, seq->context + tokens)) break;  // head-of-line: FIFO admission
    waiting_.pop_front();
    seq->running = true;
    running_.push_back(seq);
    plan.work.push_back({seq, tokens});
    budget -= tokens;
  }

  // The step's shape, for the performance model.
  for (const PlannedWork& w : plan.work) {
    Sequence* s = w.seq;
    if (w.prefill_tokens > 0) {
      plan.shape.prefill_tokens += w.prefill_tokens;
      // Each chunk token attends to the context before the chunk plus, on average,
      // half the chunk.
      plan.shape.prefill_attention_pairs +=
          static_cast<double>(w.prefill_tokens) *
          (static_cast<double>(s->context) + w.prefill_tokens / 2.0);
    } else {
      ++plan.shape.decode_seqs;
      plan.shape.decode_context_tokens += s->context;
      plan.shape.decode_kv_bytes += perf_->KvBytesPerGpu(s->context);
    }
  }
  return plan;
}

void Scheduler::Commit(Sequence* seq, int64_t tokens) {
  seq->context += tokens;
  // Give back lookahead blocks that were reserved but not filled.
  int64_t need = BlockBytes(seq->context);
  if (need < seq->kv_bytes) {
    used_bytes_ -= seq->kv_bytes - need;
    seq->kv_bytes = need;
  }
}

}  // namespace servebench::sim
