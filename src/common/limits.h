// Hard limits: sizes servebench refuses up front, with a message naming the limit,
// instead of attempting an allocation that fails (std::bad_alloc, exit 134) after an
// engine has loaded its model. Each is checked where the value is first read (flags
// in the settings' Validate(), recipe fields in recipe/, files in their loaders) and
// documented in docs/limits.md. They are far above any real benchmark: a run that
// needs more is split into several.
#pragma once

#include <cstddef>
#include <cstdint>

namespace servebench::limits {

// Requests in one load run (bench --num-prompts, a point's num_prompts, warm-ups
// included). Every request keeps a record of ~200 bytes plus its events.
inline constexpr int64_t kMaxPromptsPerRun = 1'000'000;

// Tokens of one request's prompt or output (isl, osl, --random-input-len,
// --random-output-len, --random-prefix-len, max_model_len). The longest contexts served
// today are 1-10M tokens; 4M tokens of prompt text are ~20 MB per request.
inline constexpr int64_t kMaxTokensPerRequest = 4 * 1024 * 1024;

// Prompt tokens prepared before a run starts, over all its requests (prompts and
// their requests are built up front so building them never delays a send): a hard
// ceiling; below it a run must also fit a quarter of the host's memory at
// kPromptBytesPerToken (client/prompt_memory.h, the one check). 2^31 tokens are ~21 GB:
// twice InferenceX's largest fixed-length point (conc 16384 x 10 x 8k, 1.34 G tokens).
inline constexpr int64_t kMaxPromptTokensPerRun = int64_t{2} * 1024 * 1024 * 1024;

// Bytes a prepared prompt token costs at peak: its token id or word until its request
// is built, then its share of the request's bytes (bench/client/bench_prompt_memory
// measures it: 5.7 on 8k-token completions, 6.0 on chat; the rest is headroom).
inline constexpr int64_t kPromptBytesPerToken = 8;

// Output tokens asked for over all requests of a run: each becomes a stream event of
// kOutputBytesPerToken kept until the summary is computed. A hard ceiling (~34 GB);
// below it a run must also fit a quarter of the host's memory (client/prompt_memory.h).
inline constexpr int64_t kMaxOutputTokensPerRun = int64_t{2} * 1024 * 1024 * 1024;
inline constexpr int64_t kOutputBytesPerToken = 16;

// Requests in flight at once (bench --max-concurrency, a recipe's concurrency). One
// client address has ~28,000 ephemeral ports towards one server port
// (net.ipv4.ip_local_port_range), so more could never connect.
inline constexpr int64_t kMaxConcurrency = 25'000;

// Points (and InferenceX rows) one sweep may expand to, every recipe together. Bounds
// the plan in memory against aliases that multiply lists cheaply; the real InferenceX
// full sweep is 2,078 points.
inline constexpr int64_t kMaxPointsPerSweep = 200'000;

// Bytes of one dataset file read whole (bench custom/sharegpt, eval JSONL).
inline constexpr size_t kMaxDatasetBytes = size_t{1} << 30;

// Accuracy questions in one eval run and worker threads it may use.
inline constexpr int64_t kMaxEvalQuestions = 1'000'000;
inline constexpr int64_t kMaxEvalConcurrency = 1024;

// Seconds any per-request or readiness deadline may be: a day. Larger values are
// typos (milliseconds given as seconds) and would hang a run.
inline constexpr double kMaxDeadlineSeconds = 86'400;

}  // namespace servebench::limits
