// The engine's GPU KV capacity in tokens as its log states it, read as InferenceX's
// aggregator reads it (utils/agentic/aggregation/backends/{vllm,sglang}.py,
// kv_cache_pool_tokens_from_server_log): vLLM logs "GPU KV cache size: 1,234,560 tokens"
// once per engine core, tagged "(EngineCore_DP1 pid=42)" when there are several; SGLang
// logs "max_total_num_tokens=123456" per rank, tagged "DP0 TP0 EP0". This is the
// aggregate's kv_cache_pool_tokens: vLLM's /metrics do not export it, and InferenceX
// prefers SGLang's log to its gauge.
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

// One SGLang log's capacity: the last size per "DPi TPj EPk" rank tag, summed over the
// ranks (one rank seen with the log's dp_size=N > 1: N times its size); without tagged
// lines, the sum of the untagged ones (one of them with dp_size=N > 1: N times it);
// nullopt when no line states a positive size.
std::optional<int64_t> SglangKvCapacityFromLog(std::string_view log);

// The capacities a set of logs states, by the engine whose log format states it (each
// summed over the files); InferenceX reads the one of its adapter.
struct LogKvCapacity {
  std::optional<int64_t> vllm, sglang;
};
// Over the texts of a session's logs (EngineLogHead of each file).
LogKvCapacity KvCapacityOfLogs(const std::vector<std::string>& logs);

// The first 64 MiB of a log file, what InferenceX reads of it ("" when unreadable).
std::string EngineLogHead(const std::string& path);

}  // namespace servebench::run
