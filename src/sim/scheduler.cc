#include "sim/scheduler.h"

#include <algorithm>

namespace servebench::sim {

Scheduler::Scheduler(const SchedulerSettings& settings, const PerfModel* perf)
    : settings_(settings),
      perf_(perf),
      rank_running_(static_cast<size_t>(std::max(1, perf->settings().data_parallel)), 0) {
  double pool = perf->KvBudgetBytesPerGpu() * perf->settings().data_parallel;
  pool_bytes_ = pool > 0 ? static_cast<int64_t>(pool) : 0;
  if (settings_.enable_prefix_caching) {
    const int64_t blocks =
        settings_.num_gpu_blocks_override > 0
            ? settings_.num_gpu_blocks_override
            : pool_bytes_ / std::max<int64_t>(BlockBytes(settings_.block_size), 1);
    // A host block holds the block's KV of every tensor-parallel GPU.
    const double host_block_bytes =
        static_cast<double>(BlockBytes(settings_.block_size)) * perf->settings().tensor_parallel;
    const int64_t cpu_blocks =
        host_block_bytes > 0
            ? static_cast<int64_t>(settings_.kv_offload_gb * 1e9 / host_block_bytes)
            : 0;
    cache_.emplace(blocks, settings_.block_size, cpu_blocks);
    pool_bytes_ = blocks * BlockBytes(settings_.block_size);
  }
}

int Scheduler::PrefillChunk(const Sequence& seq) const {
  int left = seq.prefill_target - seq.prefilled;
  int cap = settings_.long_prefill_token_threshold;
  return cap > 0 ? std::min(left, cap) : left;
}

int64_t Scheduler::BlockBytes(int64_t tokens) const {
  int64_t b = settings_.block_size;
  return perf_->KvBytesPerGpu((tokens + b - 1) / b * b);
}

void Scheduler::Add(Sequence* seq) {
  seq->prefill_target = seq->prompt_tokens + seq->generated;
  seq->prefilled = 0;
  seq->context = 0;
  if (seq->kv_preloaded && seq->preemptions == 0) {
    // Transferred KV: the prompt is in context (its blocks are reserved at admission).
    seq->prefilled = seq->prefill_target;
    seq->context = seq->prefill_target;
  }
  seq->kv_bytes = 0;
  seq->running = false;
  waiting_.push_back(seq);
}

void Scheduler::Release(Sequence* seq) {
  if (cache_) cache_->Free(seq);
  used_bytes_ -= seq->kv_bytes;
  seq->kv_bytes = 0;
  seq->context = 0;
}

void Scheduler::Remove(Sequence* seq) {
  Release(seq);
  if (seq->running) {
    --rank_running_[seq->rank];
    running_.erase(std::remove(running_.begin(), running_.end(), seq), running_.end());
  } else {
    waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), seq), waiting_.end());
  }
  seq->running = false;
}

bool Scheduler::Reserve(Sequence* seq, int64_t context_after) {
  if (cache_) return cache_->Grow(seq, context_after);
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
  --rank_running_[seq->rank];
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
  const size_t ranks = rank_running_.size();
  // vLLM's limits are per engine: each data-parallel rank has its own token budget.
  std::vector<int> budget(ranks, settings_.max_num_batched_tokens);
  step_load_bytes_ = 0;

  // 1. Running sequences, oldest first; the newest is the preemption victim.
  for (size_t i = 0; i < running_.size();) {
    Sequence* seq = running_[i];
    int& left = budget[seq->rank];
    int tokens = seq->in_prefill() ? std::min(left, PrefillChunk(*seq)) : lookahead;
    if (left <= 0 || (!seq->in_prefill() && tokens > left)) {
      ++i;  // this rank's budget is spent; others may still have some
      continue;
    }
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
    left -= tokens;
    ++i;
  }

  // 2. Waiting sequences, FIFO, each to the rank running the fewest, while one has room.
  while (!waiting_.empty()) {
    Sequence* seq = waiting_.front();
    // A sequence preempted in this very step waits for the next one.
    if (std::find(plan.preempted.begin(), plan.preempted.end(), seq) != plan.preempted.end()) break;
    int rank = -1;
    for (size_t r = 0; r < ranks; ++r) {
      if (rank_running_[r] >= settings_.max_num_seqs || budget[r] <= 0) continue;
      if (rank < 0 || rank_running_[r] < rank_running_[rank]) rank = static_cast<int>(r);
    }
    if (rank < 0) break;
    // A sequence with transferred KV starts decoding at once (its first step is a
    // decode step over the whole prompt's KV); others start with a prefill chunk.
    const bool decoding = !seq->in_prefill();
    if (decoding && lookahead > budget[rank]) break;
    int tokens = lookahead;
    // Head-of-line: FIFO admission.
    if (decoding ? !Reserve(seq, seq->context + tokens) : !Admit(seq, budget[rank], &tokens)) break;
    waiting_.pop_front();
    seq->running = true;
    seq->rank = rank;
    ++rank_running_[rank];
    running_.push_back(seq);
    plan.work.push_back({seq, decoding ? 0 : tokens});
    budget[rank] -= tokens;
  }

  // The step's shape, for the performance model: totals and the busiest rank.
  std::vector<double> rank_tokens(ranks, 0), rank_pairs(ranks, 0), rank_kv(ranks, 0);
  std::vector<int> rank_seqs(ranks, 0);
  for (const PlannedWork& w : plan.work) {
    Sequence* s = w.seq;
    ++rank_seqs[s->rank];
    if (w.prefill_tokens > 0) {
      ++plan.shape.prefill_seqs;
      plan.shape.prefill_tokens += w.prefill_tokens;
      // Each chunk token attends to the context before the chunk plus, on average,
      // half the chunk.
      double pairs = static_cast<double>(w.prefill_tokens) *
                     (static_cast<double>(s->context) + w.prefill_tokens / 2.0);
      plan.shape.prefill_attention_pairs += pairs;
      rank_tokens[s->rank] += w.prefill_tokens;
      rank_pairs[s->rank] += pairs;
    } else {
      int64_t kv = perf_->KvBytesPerGpu(s->context);
      ++plan.shape.decode_seqs;
      plan.shape.decode_context_tokens += s->context;
      plan.shape.decode_kv_bytes += kv;
      rank_tokens[s->rank] += lookahead;
      rank_pairs[s->rank] += static_cast<double>(s->context) * lookahead;
      rank_kv[s->rank] += static_cast<double>(kv);
    }
  }
  plan.shape.kv_load_bytes = step_load_bytes_;
  plan.shape.rank_max_seqs = *std::max_element(rank_seqs.begin(), rank_seqs.end());
  plan.shape.rank_max_tokens = *std::max_element(rank_tokens.begin(), rank_tokens.end());
  plan.shape.rank_max_pairs = *std::max_element(rank_pairs.begin(), rank_pairs.end());
  plan.shape.rank_max_kv_bytes = *std::max_element(rank_kv.begin(), rank_kv.end());
  return plan;
}

bool Scheduler::Admit(Sequence* seq, int budget, int* tokens) {
  if (!cache_) {
    *tokens = std::min(budget, PrefillChunk(*seq));
    return Reserve(seq, seq->context + *tokens);
  }
  // Reuse the cached leading prompt blocks: prefill starts after them (and takes at
  // most the long-prefill cap this step, as PrefillChunk).
  // CPU-tier hits are reused too, their KV copied back in this step.
  const CacheHit hit = cache_->CachedTokens(*seq);
  const int64_t cached = hit.tokens();
  int64_t chunk = seq->prefill_target - cached;
  if (settings_.long_prefill_token_threshold > 0)
    chunk = std::min<int64_t>(chunk, settings_.long_prefill_token_threshold);
  *tokens = static_cast<int>(std::min<int64_t>(budget, chunk));
  if (!cache_->Admit(seq, hit, cached + *tokens)) return false;
  seq->context = cached;
  seq->prefilled = static_cast<int>(cached);
  step_load_bytes_ += perf_->KvBytesPerGpu(hit.cpu_tokens);
  if (!seq->looked_up) {
    seq->looked_up = true;
    // vLLM's split: the GPU prefix cache counts its own hits; the KV connector (the
    // CPU tier) is asked for what the GPU missed.
    prefix_queries_ += seq->prompt_tokens;
    prefix_hits_ += hit.gpu_tokens;
    if (cache_->cpu_tier() != nullptr) {
      external_queries_ += seq->prompt_tokens - hit.gpu_tokens;
      external_hits_ += hit.cpu_tokens;
    }
  }
  return true;
}

Scheduler::OffloadTotals Scheduler::offload_totals() const {
  OffloadTotals t;
  if (!cache_ || cache_->cpu_tier() == nullptr) return t;
  const double per_gpu = static_cast<double>(BlockBytes(settings_.block_size));
  const double tp = perf_->settings().tensor_parallel;
  const double link = perf_->settings().kv_offload_gb_per_s * 1e9;
  t.bytes_gpu_to_cpu = static_cast<double>(cache_->offloaded_blocks()) * per_gpu * tp;
  t.bytes_cpu_to_gpu = static_cast<double>(cache_->loaded_blocks()) * per_gpu * tp;
  if (link > 0) {
    t.seconds_gpu_to_cpu = static_cast<double>(cache_->offloaded_blocks()) * per_gpu / link;
    t.seconds_cpu_to_gpu = static_cast<double>(cache_->loaded_blocks()) * per_gpu / link;
  }
  return t;
}

void Scheduler::ResetPrefixCache() {
  if (cache_) cache_->Reset();
}

void Scheduler::Commit(Sequence* seq, int64_t tokens) {
  seq->context += tokens;
  if (cache_) {
    cache_->Commit(seq);
    return;
  }
  // Give back lookahead blocks that were reserved but not filled.
  int64_t need = BlockBytes(seq->context);
  if (need < seq->kv_bytes) {
    used_bytes_ -= seq->kv_bytes - need;
    seq->kv_bytes = need;
  }
}

}  // namespace servebench::sim
