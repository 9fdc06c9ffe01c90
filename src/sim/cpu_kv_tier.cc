#include "sim/cpu_kv_tier.h"

namespace servebench::sim {

void CpuKvTier::Store(uint64_t key) {
  if (num_blocks_ <= 0) return;
  if (auto it = where_.find(key); it != where_.end()) {
    lru_.splice(lru_.end(), lru_, it->second);
    return;
  }
  if (used_blocks() >= num_blocks_) {
    where_.erase(lru_.front());
    lru_.pop_front();
  }
  lru_.push_back(key);
  where_.emplace(key, std::prev(lru_.end()));
}

bool CpuKvTier::Take(uint64_t key) {
  auto it = where_.find(key);
  if (it == where_.end()) return false;
  lru_.erase(it->second);
  where_.erase(it);
  return true;
}

}  // namespace servebench::sim
