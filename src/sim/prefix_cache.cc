#include "sim/prefix_cache.h"

#include <algorithm>

#include "sim/scheduler.h"
#include "trace/hash_mix.h"

namespace servebench::sim {

PrefixCache::PrefixCache(int64_t num_blocks, int block_size, int64_t cpu_blocks)
    : pool_(num_blocks), block_size_(block_size) {
  if (cpu_blocks > 0) cpu_.emplace(cpu_blocks);
}

int32_t PrefixCache::AllocateBlock() {
  std::optional<uint64_t> evicted;
  const int32_t block = *pool_.Allocate(&evicted);
  if (evicted && cpu_) {
    cpu_->Store(*evicted);
    ++offloaded_blocks_;
  }
  return block;
}

void PrefixCache::Reset() {
  pool_.ForgetKeys();
  if (cpu_) cpu_.emplace(cpu_->num_blocks());
}

std::vector<uint64_t> PrefixCache::BlockKeys(std::span<const uint32_t> prompt) const {
  std::vector<uint64_t> keys;
  const size_t full = prompt.size() / static_cast<size_t>(block_size_);
  keys.reserve(full);
  uint64_t key = trace::Mix64(static_cast<uint64_t>(block_size_));
  for (size_t b = 0; b < full; ++b) {
    for (size_t i = b * block_size_; i < (b + 1) * block_size_; ++i) {
      key = trace::MixInto(key, prompt[i]);
    }
    keys.push_back(key);
  }
  return keys;
}

CacheHit PrefixCache::CachedTokens(const Sequence& seq) const {
  const int64_t max_blocks = std::max(seq.prompt_tokens - 1, 0) / block_size_;
  CacheHit hit;
  for (int64_t i = 0; i < max_blocks && i < static_cast<int64_t>(seq.block_keys.size()); ++i) {
    const uint64_t key = seq.block_keys[static_cast<size_t>(i)];
    if (pool_.Find(key)) {
      hit.gpu_tokens += block_size_;
    } else if (cpu_ && cpu_->Contains(key)) {
      hit.cpu_tokens += block_size_;
    } else {
      break;
    }
  }
  return hit;
}

bool PrefixCache::Admit(Sequence* seq, const CacheHit& hit, int64_t context_after) {
  const int64_t hit_blocks = hit.tokens() / block_size_;
  const int64_t gpu_blocks = hit.gpu_tokens / block_size_;
  const std::span<const uint64_t> keys(seq->block_keys.data(), static_cast<size_t>(hit_blocks));
  const int64_t need = BlocksFor(context_after) - gpu_blocks;
  if (need > pool_.free_blocks() - pool_.FreeAmong(keys, hit_blocks)) return false;
  // The GPU hits first, so that allocating blocks for the CPU hits cannot evict them;
  // the CPU hits leave their tier before any eviction can push them out of it.
  seq->blocks.assign(static_cast<size_t>(hit_blocks), -1);
  for (int64_t i = 0; i < hit_blocks; ++i) {
    if (std::optional<int32_t> block = pool_.Find(keys[static_cast<size_t>(i)])) {
      pool_.Touch(*block);
      seq->blocks[static_cast<size_t>(i)] = *block;
    } else {
      cpu_->Take(keys[static_cast<size_t>(i)]);
    }
  }
  for (int64_t i = 0; i < hit_blocks; ++i) {
    if (seq->blocks[static_cast<size_t>(i)] >= 0) continue;
    const int32_t block = AllocateBlock();
    pool_.Register(block, keys[static_cast<size_t>(i)]);
    seq->blocks[static_cast<size_t>(i)] = block;
    ++loaded_blocks_;
  }
  seq->cached_blocks = hit_blocks;
  return Grow(seq, context_after);
}

bool PrefixCache::Grow(Sequence* seq, int64_t context_after) {
  const int64_t need = BlocksFor(context_after) - static_cast<int64_t>(seq->blocks.size());
  if (need <= 0) return true;
  if (need > pool_.free_blocks()) return false;
  for (int64_t i = 0; i < need; ++i) seq->blocks.push_back(AllocateBlock());
  return true;
}

void PrefixCache::Commit(Sequence* seq) {
  // Prompt blocks whose every token is computed become reusable.
  const int64_t computed = std::min<int64_t>(seq->context, seq->prompt_tokens) / block_size_;
  for (int64_t i = seq->cached_blocks;
       i < computed && i < static_cast<int64_t>(seq->block_keys.size()); ++i) {
    const uint64_t key = seq->block_keys[static_cast<size_t>(i)];
    // A block computed again while a copy waits in the CPU tier: the tiers stay
    // exclusive, the GPU copy is the one kept.
    if (pool_.Register(seq->blocks[static_cast<size_t>(i)], key) && cpu_) cpu_->Take(key);
  }
  seq->cached_blocks = std::max(seq->cached_blocks, computed);
  const int64_t keep = BlocksFor(seq->context);
  while (static_cast<int64_t>(seq->blocks.size()) > keep) {
    const int32_t block = seq->blocks.back();
    seq->blocks.pop_back();
    pool_.Release(std::span<const int32_t>(&block, 1));
  }
}

void PrefixCache::Free(Sequence* seq) {
  pool_.Release(seq->blocks);
  seq->blocks.clear();
  seq->cached_blocks = 0;
}

}  // namespace servebench::sim
