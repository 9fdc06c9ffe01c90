// CheckPromptMemory / CheckOutputMemory: the one rule for how much a run may hold in
// memory, its prepared prompts before the run and its recorded output events by the end.
// Prompts (and each request's bytes) are built before the run starts, so building
// them never delays a send; that costs up to limits::kPromptBytesPerToken per prompt
// token at peak (bench/client/bench_prompt_memory, in `make bench`). A run
// is refused, before any socket is opened, when that estimate exceeds a quarter of
// this host's physical memory (the rest is the engine's, its page cache and the
// records') or the hard ceiling limits::kMaxPromptTokensPerRun. InferenceX's largest
// fixed-length points (conc 4096..16384 x 10 prompts x 8k tokens: 0.3-1.3 G tokens)
// fit on a GPU node's terabytes and are refused on a laptop, with what each needs.
// Output tokens are recorded as stream events kept for the summary, up to
// limits::kOutputBytesPerToken each: the same quarter of memory bounds them (conc 16384
// x 10 x 1k: 168 M tokens, ~2.7 GB).
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"

namespace servebench::client {

// This host's physical memory in bytes (sysconf); 0 when unknown.
int64_t HostMemoryBytes();

// OK when `prompt_tokens` (prepared before the run) fit by the rule above, else
// InvalidArgument: "`what`: up to N prompt tokens, ~X GB before the run starts; ...".
// `host_memory_bytes` 0 = this host's.
Status CheckPromptMemory(double prompt_tokens, std::string_view what,
                         int64_t host_memory_bytes = 0);

// The same rule for `output_tokens` recorded over a run (limits::kMaxOutputTokensPerRun,
// limits::kOutputBytesPerToken).
Status CheckOutputMemory(double output_tokens, std::string_view what,
                         int64_t host_memory_bytes = 0);

}  // namespace servebench::client
