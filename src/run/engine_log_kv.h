// The engine's GPU KV capacity in tokens as its log states it, read as InferenceX's
// aggregator reads it (utils/agentic/aggregation/backends/vllm.py,
// kv_cache_pool_tokens_from_server_log): vLLM logs "GPU KV cache size: 1,234,560 tokens"
// once per engine core, tagged "(EngineCore_DP1 pid=42)" when there are several. This
// is the aggregate's kv_cache_pool_tokens on vLLM, whose /metrics do not export it.
// Pure functions and plain file reads; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servebench::run {

// One log's capacity: the last size per engine-core tag, summed over the tags; without
// tagged lines, the sum of the untagged ones; nullopt when no line states a positive size.
std::optional<int64_t> VllmKvCapacityFromLog(std::string_view log);

// The logs of an engine log path: the file itself, or each regular file of a folder (a
// serve session's one log per process), in name order; empty when the path is neither.
std::vector<std::string> EngineLogFiles(const std::string& log_path);

// The first 64 MiB of a log file, what InferenceX reads of it ("" when unreadable).
std::string EngineLogHead(const std::string& path);

// The sum over `files` of each one's capacity, reading at most the first 64 MiB of each
// (as InferenceX does); nullopt when none states one.
std::optional<int64_t> VllmKvCapacityFromLogs(const std::vector<std::string>& files);

}  // namespace servebench::run
