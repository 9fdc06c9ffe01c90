#include "sim/prefix_cache.h"

#include <algorithm>

#include "sim/scheduler.h"
#include "trace/hash_mix.h"

namespace servebench::sim {

PrefixCache::PrefixCache(int64_t num_blocks, int block_size)
    : pool_(num_blocks), block_size_(block_size) {}

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

int64_t PrefixCache::CachedTokens(const Sequence& seq) const {
  const int64_t max_blocks = std::max(seq.prompt_tokens - 1, 0) / block_size_;
  return std::min(pool_.CachedPrefix(seq.block_keys), max_blocks) * block_size_;
}

bool PrefixCache::Admit(Sequence* seq, int64_t cached_tokens, int64_t context_after) {
  const int64_t hit = cached_tokens / block_size_;
  const int64_t need = BlocksFor(context_after) - hit;
  if (need > pool_.free_blocks() - pool_.FreeAmong(seq->block_keys, hit)) return false;
  for (int64_t i = 0; i < hit; ++i) {
    const int32_t block = *pool_.Find(seq->block_keys[static_cast<size_t>(i)]);
    pool_.Touch(block);
    seq->blocks.push_back(block);
  }
  seq->cached_blocks = hit;
  return Grow(seq, context_after);
}

bool PrefixCache::Grow(Sequence* seq, int64_t context_after) {
  const int64_t need = BlocksFor(context_after) - static_cast<int64_t>(seq->blocks.size());
  if (need <= 0) return true;
  if (need > pool_.free_blocks()) return false;
  for (int64_t i = 0; i < need; ++i) seq->blocks.push_back(*pool_.Allocate());
  return true;
}

void PrefixCache::Commit(Sequence* seq) {
  // Prompt blocks whose every token is computed become reusable.
  const int64_t computed = std::min<int64_t>(seq->context, seq->prompt_tokens) / block_size_;
  for (int64_t i = seq->cached_blocks;
       i < computed && i < static_cast<int64_t>(seq->block_keys.size()); ++i) {
    pool_.Register(seq->blocks[static_cast<size_t>(i)], seq->block_keys[static_cast<size_t>(i)]);
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
