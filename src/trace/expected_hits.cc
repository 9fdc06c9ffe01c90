#include "trace/expected_hits.h"

#include <algorithm>

#include "trace/hash_mix.h"

namespace servebench::trace {

double HitTally::block_fraction() const {
  return trace_blocks > 0 ? static_cast<double>(hit_trace_blocks) / trace_blocks : 0.0;
}

double HitTally::token_fraction() const {
  return prompt_tokens > 0 ? static_cast<double>(hit_tokens) / prompt_tokens : 0.0;
}

std::vector<uint64_t> EngineBlockKeys(uint64_t scope, std::span<const uint64_t> hash_ids,
                                      int64_t input_tokens, int64_t trace_block_tokens,
                                      int64_t engine_block_tokens) {
  const int64_t B = trace_block_tokens, b = engine_block_tokens;
  // Tokens drawn from id blocks: every id is a full block except, in AIPerf-authored
  // traces, a last one cut to the prompt's end (prompt_synthesis.h, §2.6).
  const int64_t hashed = std::min<int64_t>(input_tokens, static_cast<int64_t>(hash_ids.size()) * B);
  std::vector<uint64_t> keys;
  keys.reserve(static_cast<size_t>(hashed / b));
  uint64_t key = Mix64(scope);
  for (int64_t e = 0; (e + 1) * b <= hashed; ++e) {
    const int64_t first = e * b / B, last = ((e + 1) * b - 1) / B;
    for (int64_t i = first; i <= last; ++i) key = MixInto(key, hash_ids[static_cast<size_t>(i)]);
    key = MixInto(key, static_cast<uint64_t>((e * b) % B));
    keys.push_back(key);
  }
  return keys;
}

PrefixHitModel::PrefixHitModel(const ExpectedHitSettings& settings) : settings_(settings) {
  if (settings_.capacity_blocks > 0)
    pool_.emplace(settings_.capacity_blocks, settings_.release_order);
}

PrefixHitModel::Admission PrefixHitModel::Start(uint64_t scope, const TraceTurn& turn,
                                                int64_t trace_block_tokens) {
  Admission admission;
  ++tally_.requests;
  // Trace blocks, infinite cache: leading ids of this scope seen before.
  const uint64_t scope_key = Mix64(scope);
  bool leading = true;
  for (uint64_t id : turn.hash_ids) {
    const bool seen = !seen_trace_blocks_.insert(MixInto(scope_key, id)).second;
    leading = leading && seen;
    if (leading) ++admission.hit_trace_blocks;
  }
  tally_.hit_trace_blocks += admission.hit_trace_blocks;
  tally_.trace_blocks += static_cast<int64_t>(turn.hash_ids.size());

  // Engine blocks: vLLM looks up at most N − 1 tokens, in whole blocks.
  const int64_t b = settings_.engine_block_tokens;
  const std::vector<uint64_t> keys =
      EngineBlockKeys(scope, turn.hash_ids, turn.input_tokens, trace_block_tokens, b);
  const int64_t max_hit = std::max<int64_t>(turn.input_tokens - 1, 0) / b;
  int64_t hit = 0;
  if (!pool_) {
    while (hit < static_cast<int64_t>(keys.size()) && seen_engine_blocks_.contains(keys[hit]))
      ++hit;
    hit = std::min(hit, max_hit);
    seen_engine_blocks_.insert(keys.begin(), keys.end());
  } else {
    hit = std::min(pool_->CachedPrefix(keys), max_hit);
    // The KV the request holds by its end: prompt plus every output token but the last
    // (whose KV is never computed).
    const int64_t kv_tokens = turn.input_tokens + std::max<int64_t>(turn.output_tokens - 1, 0);
    const int64_t total = (kv_tokens + b - 1) / b;
    const int64_t available = pool_->free_blocks() - pool_->FreeAmong(keys, hit);
    if (total - hit > available) {
      admission.admitted = false;
      ++tally_.not_admitted;
    } else {
      std::vector<int32_t> blocks;
      blocks.reserve(static_cast<size_t>(total));
      for (int64_t i = 0; i < hit; ++i) {
        const int32_t block = *pool_->Find(keys[i]);
        pool_->Touch(block);
        blocks.push_back(block);
      }
      for (int64_t i = hit; i < total; ++i) {
        const int32_t block = *pool_->Allocate();
        if (i < static_cast<int64_t>(keys.size())) pool_->Register(block, keys[i]);
        blocks.push_back(block);
      }
      admission.handle = static_cast<int64_t>(held_.size());
      held_.push_back(std::move(blocks));
    }
  }
  admission.hit_tokens = hit * b;
  tally_.hit_tokens += admission.hit_tokens;
  tally_.prompt_tokens += turn.input_tokens;
  return admission;
}

void PrefixHitModel::Finish(int64_t handle) {
  if (!pool_ || handle < 0 || handle >= static_cast<int64_t>(held_.size())) return;
  pool_->Release(held_[handle]);
  held_[handle].clear();
  held_[handle].shrink_to_fit();
}

HitTally ExpectedHitsInTimestampOrder(const Trace& trace, const ExpectedHitSettings& settings) {
  struct Item {
    int64_t timestamp_ms;
    uint64_t scope;
    const TraceTurn* turn;
  };
  std::vector<Item> items;
  for (const TraceTree& tree : trace.trees) {
    for (const TraceConversation& conversation : tree.conversations) {
      for (const TraceTurn& turn : conversation.turns) {
        items.push_back({turn.timestamp_ms, tree.scope, &turn});
      }
    }
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.timestamp_ms < b.timestamp_ms; });
  PrefixHitModel model(settings);
  for (const Item& item : items) {
    PrefixHitModel::Admission a = model.Start(item.scope, *item.turn, trace.block_size_tokens);
    model.Finish(a.handle);
  }
  return model.tally();
}

}  // namespace servebench::trace
