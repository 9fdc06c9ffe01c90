// BlockPool: vLLM's KV block pool, the one model of a prefix cache in servebench. The
// sim's prefix cache (sim/prefix_cache.h) runs on it, and so does the client-side
// expected hit fraction (trace/expected_hits.h), so the two sides of the comparison
// apply the same rule (vLLM docs/design/prefix_caching.md, reference agentic.md §5):
//
//   - A fixed number of blocks. A block is in use (reference count > 0) or free.
//   - A block may carry a key (the chained hash of its tokens): then it is cached and
//     a later request whose leading keys match reuses it, even while it is free.
//   - Free blocks wait in one queue. Allocation takes the head; if that block carried
//     a key the key is forgotten (eviction). Reusing a cached free block takes it out
//     of the queue.
//   - A finished request's blocks return to the tail of the queue in reverse order,
//     last block first, so a request's tail is evicted before its shared head
//     (ReleaseOrder::kTailFirst). kForward returns them in request order (plain LRU),
//     kept to reproduce §5's comparison.
// Not thread-safe: one owner (the sim's engine thread, or one replay's bookkeeping).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace servebench::trace {

enum class ReleaseOrder { kTailFirst, kForward };

class BlockPool {
 public:
  explicit BlockPool(int64_t num_blocks, ReleaseOrder order = ReleaseOrder::kTailFirst);

  int64_t num_blocks() const { return static_cast<int64_t>(ref_.size()); }
  int64_t free_blocks() const { return free_count_; }
  int64_t used_blocks() const { return num_blocks() - free_count_; }
  int64_t cached_blocks() const { return static_cast<int64_t>(by_key_.size()); }

  // The block holding `key`, or nullopt when it is not cached.
  std::optional<int32_t> Find(uint64_t key) const;
  // How many of `keys`, from the first, are cached (stops at the first absent one).
  int64_t CachedPrefix(std::span<const uint64_t> keys) const;
  // Of those leading cached blocks (the first `count` keys), how many are free now:
  // reusing them takes them off the free queue.
  int64_t FreeAmong(std::span<const uint64_t> keys, int64_t count) const;

  // Takes a cached block for a request: its reference count grows and it leaves the
  // free queue if it was there.
  void Touch(int32_t block);
  // Takes the head of the free queue (forgetting its key), or nullopt when no block is
  // free. When the block carried a key and `evicted_key` is given, the key is put
  // there (the sim's CPU offload tier keeps what the pool evicts).
  std::optional<int32_t> Allocate(std::optional<uint64_t>* evicted_key = nullptr);
  // Gives `block` (in use) the key `key`. Returns false, changing nothing, when the key
  // is already cached in another block (vLLM keeps the first copy).
  bool Register(int32_t block, uint64_t key);
  // Drops one reference from each block of a request (`blocks` in request order) and
  // queues those no longer used, in the pool's release order.
  void Release(std::span<const int32_t> blocks);
  // Forgets every key (vLLM's reset_prefix_cache): afterwards nothing is cached and
  // no later request reuses a block; blocks in use stay in use and the free queue
  // keeps its order.
  void ForgetKeys();

 private:
  static constexpr int32_t kNone = -1;
  void PushTail(int32_t block);
  void Unlink(int32_t block);

  ReleaseOrder order_;
  std::vector<int32_t> ref_;
  std::vector<std::optional<uint64_t>> key_;
  // The free queue: a doubly linked list over block indices.
  std::vector<int32_t> prev_, next_;
  std::vector<bool> queued_;
  int32_t head_ = kNone, tail_ = kNone;
  int64_t free_count_ = 0;
  std::unordered_map<uint64_t, int32_t> by_key_;
};

}  // namespace servebench::trace
