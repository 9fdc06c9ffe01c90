// Scheduler: vLLM-style continuous batching, without time. Each call to Plan()
// decides what the next engine step computes:
//   1. running sequences first, in arrival order: a sequence still in prefill gets
//      a chunk of at most the remaining token budget (chunked prefill); a decoding
//      sequence gets 1 + num_speculative_tokens tokens;
//   2. then waiting sequences, while fewer than max_num_seqs run and budget is left;
//      a sequence is admitted only if the KV cache has room for its first chunk.
// With data parallelism (PerfSettings::data_parallel = N) there are N engine ranks,
// each with vLLM's per-engine limits (max_num_seqs sequences, max_num_batched_tokens
// per step); a waiting sequence joins the rank running the fewest, as vLLM's DP
// coordinator balances, and the step's shape records the busiest rank's share (ranks
// step in lockstep, so the busiest sets the step's time).
// KV is counted in blocks of 16 tokens, in bytes per GPU (PerfModel::KvBytesPerGpu)
// against a pool of KvBudgetBytesPerGpu × DP. When a running sequence needs a block
// and none is free, the most recently admitted running sequence is preempted: its KV
// is freed and it goes back to the front of the queue, to be recomputed (prompt plus
// tokens generated so far) when it is admitted again — vLLM's recompute policy.
// With enable_prefix_caching the KV is kept in blocks by a PrefixCache instead: a
// sequence is admitted with its leading cached prompt blocks reused, so its prefill
// starts after them (prefill time skips cached tokens), and the pool is the perf
// model's budget in blocks (or num_gpu_blocks_override). A CPU offload tier
// (kv_offload_gb) holds what the pool evicts; a sequence admitted with blocks from it
// has their KV copied back, and the step that admits it pays the copy
// (StepShape::kv_load_bytes over PerfSettings::kv_offload_gb_per_s) instead of their
// prefill.
// Not thread-safe: the engine's loop thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "sim/perf_model.h"
#include "sim/prefix_cache.h"

namespace servebench::sim {

struct SchedulerSettings {
  int max_num_seqs = 256;               // vLLM --max-num-seqs
  int max_num_batched_tokens = 8192;    // vLLM --max-num-batched-tokens (token budget per step)
  int num_speculative_tokens = 0;       // lookahead reserved per decode step
  int block_size = 16;                  // KV block, tokens (vLLM --block-size)
  bool enable_prefix_caching = false;   // vLLM --enable-prefix-caching
  int64_t num_gpu_blocks_override = 0;  // vLLM --num-gpu-blocks-override; 0 = from the perf model
  // vLLM --long-prefill-token-threshold: a prompt gets at most this many tokens per
  // step, however much budget is left (0 = no cap).
  int long_prefill_token_threshold = 0;
  // Host memory for the CPU offload tier, decimal GB over all GPUs (vLLM
  // kv_offloading_size, SGLang --hicache-size × TP); 0 = no tier. Needs prefix caching.
  double kv_offload_gb = 0;
};

// A sequence as the scheduler sees it; owned by the engine.
struct Sequence {
  uint64_t id = 0;
  int prompt_tokens = 0;
  int generated = 0;  // output tokens produced so far
  // Set by the scheduler:
  int prefill_target =
      0;  // tokens to (re)compute before decoding: prompt (+ generated after a preemption)
  int prefilled = 0;     // of prefill_target, computed so far
  int64_t context = 0;   // tokens whose KV is held
  int64_t kv_bytes = 0;  // KV reserved in the pool (block-rounded)
  int rank = 0;          // data-parallel rank, while running
  bool running = false;
  int preemptions = 0;
  // The prompt's KV came from a prefill worker: nothing to compute at admission (a
  // preemption drops it; the sequence is then recomputed here, as vLLM does).
  bool kv_preloaded = false;
  // Prefix caching only (sim/prefix_cache.h):
  std::vector<uint64_t> block_keys;  // chained keys of the prompt's full blocks
  std::vector<int32_t> blocks;       // KV blocks held, in order
  int64_t cached_blocks = 0;         // of `blocks`, the leading ones that carry their key
  bool looked_up = false;            // counted in prefix_cache_queries/hits (first admission)
  bool in_prefill() const { return prefilled < prefill_target; }
};

struct PlannedWork {
  Sequence* seq;
  int prefill_tokens;  // > 0: a prefill chunk; 0: a decode step
};

struct StepPlan {
  std::vector<PlannedWork> work;
  std::vector<Sequence*> preempted;  // sequences preempted while planning this step
  StepShape shape;
  bool empty() const { return work.empty(); }
};

class Scheduler {
 public:
  Scheduler(const SchedulerSettings& settings, const PerfModel* perf);

  // Queues a new sequence (FIFO).
  void Add(Sequence* seq);
  // Forgets a sequence (finished or aborted) and frees its KV.
  void Remove(Sequence* seq);
  // Plans the next step; reserves the KV the planned tokens need.
  StepPlan Plan();
  // After the step: the sequence's context grew by `tokens` (prefill chunk, or the
  // decode tokens actually accepted); releases the unused lookahead.
  void Commit(Sequence* seq, int64_t tokens);
  // POST /reset_prefix_cache: forgets every cached prompt block (PrefixCache::Reset);
  // nothing without prefix caching. The hit and query counters keep counting.
  void ResetPrefixCache();

  int running() const { return static_cast<int>(running_.size()); }
  int waiting() const { return static_cast<int>(waiting_.size()); }
  double kv_usage() const {
    if (cache_) return cache_->usage();
    return pool_bytes_ > 0 ? static_cast<double>(used_bytes_) / pool_bytes_ : 1.0;
  }
  // Prefix caching: null when off.
  const PrefixCache* prefix_cache() const { return cache_ ? &*cache_ : nullptr; }
  // Prompt tokens looked up / found in the prefix cache, once per sequence, at its
  // first admission (vLLM's prefix_cache_queries / prefix_cache_hits, in tokens).
  int64_t prefix_cache_queries() const { return prefix_queries_; }
  int64_t prefix_cache_hits() const { return prefix_hits_; }
  // CPU tier (0 without one), vLLM's KV-connector view: prompt tokens looked up past
  // the GPU hits / found in the CPU tier, at first admission.
  int64_t external_prefix_cache_queries() const { return external_queries_; }
  int64_t external_prefix_cache_hits() const { return external_hits_; }
  double cpu_kv_usage() const {
    return cache_ && cache_->cpu_tier() ? cache_->cpu_tier()->usage() : 0.0;
  }
  int64_t cpu_blocks() const {
    return cache_ && cache_->cpu_tier() ? cache_->cpu_tier()->num_blocks() : 0;
  }
  // Bytes over all GPUs of the blocks copied to and from the CPU tier, and the
  // seconds the host link took for them (per-GPU bytes ÷ kv_offload_gb_per_s).
  struct OffloadTotals {
    double bytes_gpu_to_cpu = 0, bytes_cpu_to_gpu = 0;
    double seconds_gpu_to_cpu = 0, seconds_cpu_to_gpu = 0;
  };
  OffloadTotals offload_totals() const;
  int64_t preemptions_total() const { return preemptions_total_; }
  int64_t pool_bytes() const { return pool_bytes_; }

 private:
  int64_t BlockBytes(int64_t tokens) const;
  // Prompt tokens the sequence may compute this step before the budget is applied.
  int PrefillChunk(const Sequence& seq) const;
  bool Reserve(Sequence* seq, int64_t context_after);
  // Admits the waiting `seq` with at most `budget` tokens this step; sets *tokens.
  bool Admit(Sequence* seq, int budget, int* tokens);
  void Release(Sequence* seq);
  void Preempt(Sequence* seq, StepPlan* plan);

  SchedulerSettings settings_;
  const PerfModel* perf_;
  std::deque<Sequence*> waiting_;
  std::vector<Sequence*> running_;  // admission order
  std::vector<int> rank_running_;   // running sequences per data-parallel rank
  int64_t pool_bytes_ = 0;
  int64_t used_bytes_ = 0;
  int64_t preemptions_total_ = 0;
  std::optional<PrefixCache> cache_;
  int64_t prefix_queries_ = 0, prefix_hits_ = 0;
  int64_t external_queries_ = 0, external_hits_ = 0;
  int64_t step_load_bytes_ = 0;  // per GPU, copied from the CPU tier in the step being planned
};

}  // namespace servebench::sim
