// Trace replay in the load generator (docs/agentic.md): --dataset-name a trace format
// with --dataset-path. A trace becomes the run's measured prompts — token ids
// synthesized from each turn's hash ids (trace/prompt_synthesis.h), for
// /v1/completions, or chat messages (chat_trace_prompts.h) — and, on a fixed
// schedule, their send offsets: each turn at its
// recorded timestamp divided by --trace-speedup (open loop, independent of
// completions, as AIPerf's --fixed-schedule).
//
// After the run, PrefixCacheReport sets two hit rates side by side: the expected
// fraction (trace/expected_hits.h), fed with the requests in the order they were
// sent and pinned until they completed, for an infinite cache and, given the engine's
// KV pool, for an LRU of that many blocks; and the server's, from its counters
// (metrics/prefix_cache_counters.h). When both exist and differ by more than
// --prefix-hit-tolerance, the run is invalid (`prefix_hits_disagree`): the replay did
// not build the prefixes it meant to, or the engine does not cache them. With live
// assistant turns the expected side is marked not applicable and nothing is compared.
// Not thread-safe; called by RunBench before and after the measured phase.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "client/client_settings.h"
#include "client/dataset.h"
#include "client/prefix_hit_check.h"
#include "common/status.h"
#include "metrics/request_record.h"
#include "metrics/validity.h"
#include "trace/trace.h"

namespace servebench::client {

struct TraceWorkload {
  trace::Trace trace;
  // Closed-loop lanes (--max-concurrency N without --fixed-schedule): prompts in
  // LaneSchedule's job order and no offsets. Otherwise the fixed schedule.
  bool lanes = false;
  // A chat endpoint: the prompts are messages, made after the server answers
  // (chat_trace_prompts.h); until then they hold lengths only.
  bool chat = false;
  // --assistant-turns live (live_replies.h): later turns carry the server's replies, so
  // their prompts are rebuilt at release and no expected prefix-hit fraction applies.
  bool live_replies = false;
  PromptSet prompts;                // measured prompts, in schedule order
  std::vector<int64_t> offsets_ns;  // per prompt: send offset from the phase start
  struct Ref {
    size_t tree = 0, conversation = 0, turn = 0;
  };
  std::vector<Ref> refs;  // per prompt: its turn in `trace`

  const trace::TraceTurn& turn(size_t prompt) const;
};

// Loads the trace and builds its prompts (token ids on /v1/completions; on a chat
// endpoint only their lengths, for MakeChatTracePrompts) and schedule. Fails with
// file:line and the field for a bad row, and before anything is sent when a fixed
// schedule meets a turn with no timestamp (give --max-concurrency for lanes), a text
// trace (dag_jsonl, multi_turn) meets a completions endpoint, or --assistant-turns live
// meets a hash-id trace, a fixed schedule, a start position or per-lane warm-ups.
StatusOr<TraceWorkload> LoadTraceWorkload(const BenchSettings& settings);

// The result's "prefix_cache" object; adds `prefix_hits_disagree` to `validity` when
// the two rates disagree beyond the tolerance. `records` may hold warm-ups: with lanes
// (their index is a turn) they seed the cache model before the measured requests and
// are left out of the fractions (`expected.seeding_requests`); otherwise skipped.
boost::json::object PrefixCacheReport(const TraceWorkload& workload,
                                      const std::vector<metrics::RequestRecord>& records,
                                      const BenchSettings& settings,
                                      const std::optional<PrefixCacheSide>& server,
                                      metrics::Validity* validity);

// Per-request JSONL fields of a turn: tree, conversation, turn_index.
void AddTurnFields(const TraceWorkload& workload, size_t prompt, boost::json::object* line);

}  // namespace servebench::client
