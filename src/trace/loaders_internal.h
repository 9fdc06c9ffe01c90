// Shared by the format loaders (trace_loader.cc dispatches to them). Not public.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/status.h"
#include "trace/trace.h"

namespace servebench::trace::internal {

// Appends the trees of one Mooncake JSONL file to `trace`; `scope` keys its ids.
Status LoadMooncakeFile(const std::string& path, uint64_t scope, int64_t block_tokens,
                        Trace* trace);
// Appends the sessions of one Bailian JSONL file to `trace`; `scope` keys its ids.
Status LoadBailianFile(const std::string& path, uint64_t scope, int64_t block_tokens, Trace* trace);
// Appends the trajectories of one Weka file (JSONL, or one JSON object) to `trace`.
// `first_scope` keys the first trajectory's ids; each next one gets the next scope.
Status LoadWekaFile(const std::string& path, uint64_t first_scope, Trace* trace);
// Appends the trees of one AIPerf dag_jsonl file (roots and their spawned / forked
// children, messages accumulated as sent) to `trace`.
Status LoadDagFile(const std::string& path, uint64_t scope, Trace* trace);
// Appends the conversations of one vLLM multi_turn file (a JSON list) to `trace`.
Status LoadMultiTurnFile(const std::string& path, uint64_t scope, Trace* trace);

// One id, one size: within a scope a hash id names one block, so it may not be a
// full block in one row and a cut last block in another (§2.6).
class BlockSizes {
 public:
  // Checks `turn`'s layout against `block_tokens` and every earlier row of the scope.
  // The message names `field` (the hash_ids path); the caller adds the place.
  Status Check(const TraceTurn& turn, int64_t block_tokens, std::string_view field = "hash_ids");

 private:
  std::unordered_map<uint64_t, int64_t> size_of_;
};

}  // namespace servebench::trace::internal
