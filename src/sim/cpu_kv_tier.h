// CpuKvTier: the simulated engine's second KV tier, host DRAM behind the GPU's
// prefix cache (--kv-offload-gb; reference agentic.md §1.3 "DRAM offload").
//
//   - It holds block keys only (the sim keeps no KV data): a key here means the
//     block's KV sits in host memory and can be copied back instead of recomputed.
//   - Exclusive of the GPU pool: a block the GPU pool evicts is stored here (the
//     offload, GPU → CPU); a block a request reuses from here moves back to the GPU
//     (the load, CPU → GPU) and leaves this tier. So GPU + CPU hold GPU + CPU blocks,
//     the capacity the client's expected-hit model (trace/expected_hits.h) is given.
//   - LRU: storing into a full tier drops its least recently stored key.
// Not thread-safe: the engine's loop thread only (through PrefixCache).
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>

namespace servebench::sim {

class CpuKvTier {
 public:
  explicit CpuKvTier(int64_t num_blocks) : num_blocks_(num_blocks) {}

  int64_t num_blocks() const { return num_blocks_; }
  int64_t used_blocks() const { return static_cast<int64_t>(where_.size()); }
  double usage() const {
    return num_blocks_ > 0 ? static_cast<double>(used_blocks()) / num_blocks_ : 0.0;
  }
  bool Contains(uint64_t key) const { return where_.contains(key); }

  // Stores an evicted GPU block's key as the most recent; drops the least recent one
  // when full. A key already here only becomes the most recent. No-op with 0 blocks.
  void Store(uint64_t key);
  // Removes `key` (loaded back to the GPU, or computed there again); false when absent.
  bool Take(uint64_t key);

 private:
  int64_t num_blocks_;
  std::list<uint64_t> lru_;  // front = least recent
  std::unordered_map<uint64_t, std::list<uint64_t>::iterator> where_;
};

}  // namespace servebench::sim
