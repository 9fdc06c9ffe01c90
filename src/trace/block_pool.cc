#include "trace/block_pool.h"

namespace servebench::trace {

BlockPool::BlockPool(int64_t num_blocks, ReleaseOrder order)
    : order_(order),
      ref_(static_cast<size_t>(num_blocks), 0),
      key_(static_cast<size_t>(num_blocks)),
      prev_(static_cast<size_t>(num_blocks), kNone),
      next_(static_cast<size_t>(num_blocks), kNone),
      queued_(static_cast<size_t>(num_blocks), false) {
  for (int32_t b = 0; b < static_cast<int32_t>(num_blocks); ++b) PushTail(b);
}

void BlockPool::PushTail(int32_t block) {
  prev_[block] = tail_;
  next_[block] = kNone;
  if (tail_ != kNone) next_[tail_] = block;
  tail_ = block;
  if (head_ == kNone) head_ = block;
  queued_[block] = true;
  ++free_count_;
}

void BlockPool::Unlink(int32_t block) {
  if (prev_[block] != kNone) next_[prev_[block]] = next_[block];
  if (next_[block] != kNone) prev_[next_[block]] = prev_[block];
  if (head_ == block) head_ = next_[block];
  if (tail_ == block) tail_ = prev_[block];
  prev_[block] = next_[block] = kNone;
  queued_[block] = false;
  --free_count_;
}

std::optional<int32_t> BlockPool::Find(uint64_t key) const {
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return std::nullopt;
  return it->second;
}

int64_t BlockPool::CachedPrefix(std::span<const uint64_t> keys) const {
  int64_t n = 0;
  for (uint64_t key : keys) {
    if (!by_key_.contains(key)) break;
    ++n;
  }
  return n;
}

int64_t BlockPool::FreeAmong(std::span<const uint64_t> keys, int64_t count) const {
  int64_t n = 0;
  for (int64_t i = 0; i < count; ++i) {
    auto it = by_key_.find(keys[i]);
    if (it != by_key_.end() && queued_[it->second]) ++n;
  }
  return n;
}

void BlockPool::Touch(int32_t block) {
  if (queued_[block]) Unlink(block);
  ++ref_[block];
}

std::optional<int32_t> BlockPool::Allocate(std::optional<uint64_t>* evicted_key) {
  if (evicted_key != nullptr) evicted_key->reset();
  if (head_ == kNone) return std::nullopt;
  const int32_t block = head_;
  Unlink(block);
  if (key_[block]) {
    if (evicted_key != nullptr) *evicted_key = key_[block];
    by_key_.erase(*key_[block]);
    key_[block].reset();
  }
  ref_[block] = 1;
  return block;
}

void BlockPool::ForgetKeys() {
  by_key_.clear();
  for (std::optional<uint64_t>& key : key_) key.reset();
}

bool BlockPool::Register(int32_t block, uint64_t key) {
  if (key_[block] == key) return true;
  if (by_key_.contains(key)) return false;
  if (key_[block]) by_key_.erase(*key_[block]);
  key_[block] = key;
  by_key_.emplace(key, block);
  return true;
}

void BlockPool::Release(std::span<const int32_t> blocks) {
  auto release_one = [this](int32_t block) {
    if (ref_[block] > 0 && --ref_[block] == 0) PushTail(block);
  };
  if (order_ == ReleaseOrder::kTailFirst) {
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) release_one(*it);
  } else {
    for (int32_t block : blocks) release_one(block);
  }
}

}  // namespace servebench::trace
