// PrefixCache: the simulated engine's KV blocks with vLLM's automatic prefix caching
// (vLLM docs/design/prefix_caching.md; reference agentic.md §4.3, §5). On with
// --enable-prefix-caching; then the scheduler keeps KV in blocks of --block-size
// tokens here instead of counting bytes.
//
//   - A prompt's full blocks get chained keys (hash of the previous key and the
//     block's token ids), so equal keys mean equal prefixes.
//   - When a sequence is admitted, its leading cached blocks are reused: at most
//     N − 1 prompt tokens (the last prompt token is always computed, as in vLLM), in
//     whole blocks. Prefill then computes only the rest.
//   - A prompt block is cached once its tokens are computed. Output blocks are not
//     (the sim does not key generated text).
//   - The pool, eviction and release order are trace::BlockPool's: the same rule
//     the client's expected hit fraction runs, so the two compare like for like.
// Capacity: the perf model's KV budget in blocks, or --num-gpu-blocks-override.
// With a CPU tier (--kv-offload-gb; sim/cpu_kv_tier.h) blocks the pool evicts are
// kept there, and a lookup that misses the GPU continues in the CPU tier: a leading
// block found in either tier is a hit (the chain stops at the first block in
// neither); a CPU hit is copied back into a GPU block at admission (the scheduler
// charges the transfer) instead of being recomputed.
// Not thread-safe: the engine's loop thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/cpu_kv_tier.h"
#include "trace/block_pool.h"

namespace servebench::sim {

struct Sequence;

// A lookup's leading cached prompt tokens, by the tier that holds them.
struct CacheHit {
  int64_t gpu_tokens = 0;
  int64_t cpu_tokens = 0;  // 0 without a CPU tier
  int64_t tokens() const { return gpu_tokens + cpu_tokens; }
};

class PrefixCache {
 public:
  // `cpu_blocks` > 0 adds a CPU tier of that many blocks.
  PrefixCache(int64_t num_blocks, int block_size, int64_t cpu_blocks = 0);

  int64_t num_blocks() const { return pool_.num_blocks(); }
  double usage() const {
    return num_blocks() > 0 ? static_cast<double>(pool_.used_blocks()) / num_blocks() : 1.0;
  }

  // Chained keys of the full blocks of `prompt`.
  std::vector<uint64_t> BlockKeys(std::span<const uint32_t> prompt) const;

  // Prompt tokens of `seq` found in the cache now (whole blocks, at most N − 1), per tier.
  CacheHit CachedTokens(const Sequence& seq) const;
  // Admits `seq` with `hit` (from CachedTokens, nothing changed since) reused and room
  // for `context_after` tokens; CPU-tier hits move into GPU blocks. False, changing
  // nothing, when the GPU blocks are not free.
  bool Admit(Sequence* seq, const CacheHit& hit, int64_t context_after);
  // Grows `seq`'s blocks to hold `context_after` tokens; false (no change) when not
  // enough blocks are free.
  bool Grow(Sequence* seq, int64_t context_after);
  // After a step: caches the prompt blocks now computed and gives back blocks beyond
  // seq->context (unused lookahead).
  void Commit(Sequence* seq);
  // Releases every block of `seq` (finished, aborted or preempted).
  void Free(Sequence* seq);
  // Empties the cache (POST /reset_prefix_cache): no block carries a key afterwards,
  // in either tier. Running sequences keep their blocks; their prompt blocks are
  // simply not shared.
  void Reset();

  // The CPU tier, or null without one.
  const CpuKvTier* cpu_tier() const { return cpu_ ? &*cpu_ : nullptr; }
  // Blocks copied GPU → CPU (evictions kept) and CPU → GPU (hits loaded), ever.
  int64_t offloaded_blocks() const { return offloaded_blocks_; }
  int64_t loaded_blocks() const { return loaded_blocks_; }

 private:
  int64_t BlocksFor(int64_t tokens) const { return (tokens + block_size_ - 1) / block_size_; }
  // Allocates a GPU block; a key it evicts goes to the CPU tier.
  int32_t AllocateBlock();

  trace::BlockPool pool_;
  int block_size_;
  std::optional<CpuKvTier> cpu_;
  int64_t offloaded_blocks_ = 0, loaded_blocks_ = 0;
};

}  // namespace servebench::sim
