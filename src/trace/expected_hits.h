// The client-side expected prefix-cache hit fraction of a replay (reference
// agentic.md §5): what an engine with a prefix cache should report if the replay built
// the prefixes it meant to. Two figures:
//
//   block fraction  Σ leading trace blocks already seen / Σ trace blocks, infinite cache,
//                   over the trace's own ids (AIPerf `theoretical_prefix_cache_hit`);
//   token fraction  Σ engine hit tokens / Σ prompt tokens, in the engine's block size
//                   with vLLM's lookup rule (full blocks only, at most N − 1 tokens), for
//                   an infinite cache or an LRU of the engine's KV capacity
//                   (trace/block_pool.h, the same pool the sim runs). This is the figure
//                   to set beside the server's prefix_cache_hits / prefix_cache_queries.
//
// Requests are fed in the order the server receives them: Start when a request is
// sent (its blocks stay pinned while it runs, which models concurrency), Finish when
// it completes. Sequential replay is Start then Finish. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "trace/block_pool.h"
#include "trace/trace.h"

namespace servebench::trace {

struct ExpectedHitSettings {
  // Tokens per engine KV block (vLLM --block-size; the sim's --block-size).
  int64_t engine_block_tokens = 16;
  // The engine's KV pool in blocks (pool tokens / engine_block_tokens). 0 = infinite.
  int64_t capacity_blocks = 0;
  ReleaseOrder release_order = ReleaseOrder::kTailFirst;
};

struct HitTally {
  int64_t requests = 0;
  int64_t hit_trace_blocks = 0, trace_blocks = 0;  // block fraction
  int64_t hit_tokens = 0, prompt_tokens = 0;       // token fraction
  // Requests whose blocks did not fit beside the pinned ones (the LRU model could not
  // admit them; counted, with no hits).
  int64_t not_admitted = 0;
  double block_fraction() const;  // 0 when there were no blocks
  double token_fraction() const;  // 0 when there were no tokens
};

// The engine-block keys of a prompt: one per engine block that lies wholly inside
// the id-covered part of the prompt, chained (each key depends on every block before
// it), so two prompts share their first k keys iff they share their first k·b tokens.
std::vector<uint64_t> EngineBlockKeys(uint64_t scope, std::span<const uint64_t> hash_ids,
                                      int64_t input_tokens, int64_t trace_block_tokens,
                                      int64_t engine_block_tokens);

class PrefixHitModel {
 public:
  explicit PrefixHitModel(const ExpectedHitSettings& settings);

  struct Admission {
    int64_t hit_tokens = 0;
    int64_t hit_trace_blocks = 0;
    bool admitted = true;
    int64_t handle = -1;  // for Finish
  };
  // A request reaches the server. `scope` keys its blocks (TraceTree::scope, mixed
  // with the play for a cache-busted replay).
  Admission Start(uint64_t scope, const TraceTurn& turn, int64_t trace_block_tokens);
  // The request completed (or failed): its blocks are released.
  void Finish(int64_t handle);

  const HitTally& tally() const { return tally_; }

 private:
  ExpectedHitSettings settings_;
  HitTally tally_;
  std::unordered_set<uint64_t> seen_trace_blocks_;   // (scope, id) keys, infinite
  std::unordered_set<uint64_t> seen_engine_blocks_;  // infinite-cache mode
  std::optional<BlockPool> pool_;                    // LRU mode
  std::vector<std::vector<int32_t>> held_;           // per handle: blocks to release
};

// The expected fractions of a whole trace replayed one request at a time in
// timestamp order (fixed schedule; ties keep file order) — the figure for a plan.
HitTally ExpectedHitsInTimestampOrder(const Trace& trace, const ExpectedHitSettings& settings);

}  // namespace servebench::trace
