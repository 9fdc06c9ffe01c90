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
// Not thread-safe: the engine's loop thread only.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trace/block_pool.h"

namespace servebench::sim {

struct Sequence;

class PrefixCache {
 public:
  PrefixCache(int64_t num_blocks, int block_size);

  int64_t num_blocks() const { return pool_.num_blocks(); }
  double usage() const {
    return num_blocks() > 0 ? static_cast<double>(pool_.used_blocks()) / num_blocks() : 1.0;
  }

  // Chained keys of the full blocks of `prompt`.
  std::vector<uint64_t> BlockKeys(std::span<const uint32_t> prompt) const;

  // Prompt tokens of `seq` found in the cache now (whole blocks, at most N − 1).
  int64_t CachedTokens(const Sequence& seq) const;
  // Admits `seq` with `cached_tokens` (from CachedTokens) reused and room for
  // `context_after` tokens. False, changing nothing, when the blocks are not free.
  bool Admit(Sequence* seq, int64_t cached_tokens, int64_t context_after);
  // Grows `seq`'s blocks to hold `context_after` tokens; false (no change) when not
  // enough blocks are free.
  bool Grow(Sequence* seq, int64_t context_after);
  // After a step: caches the prompt blocks now computed and gives back blocks beyond
  // seq->context (unused lookahead).
  void Commit(Sequence* seq);
  // Releases every block of `seq` (finished, aborted or preempted).
  void Free(Sequence* seq);
  // Empties the cache (POST /reset_prefix_cache): no block carries a key afterwards.
  // Running sequences keep their blocks; their prompt blocks are simply not shared.
  void Reset() { pool_.ForgetKeys(); }

 private:
  int64_t BlocksFor(int64_t tokens) const { return (tokens + block_size_ - 1) / block_size_; }

  trace::BlockPool pool_;
  int block_size_;
};

}  // namespace servebench::sim
