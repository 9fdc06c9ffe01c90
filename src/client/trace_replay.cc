#include "client/trace_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "client/prompt_memory.h"
#include "client/request_builder.h"
#include "common/limits.h"
#include "trace/expected_hits.h"
#include "trace/prompt_synthesis.h"
#include "trace/trace_loader.h"

namespace servebench::client {
namespace json = boost::json;

const trace::TraceTurn& TraceWorkload::turn(size_t prompt) const {
  const Ref& r = refs[prompt];
  return trace.trees[r.tree].conversations[r.conversation].turns[r.turn];
}

namespace {

// Where --assistant-turns live is built: text traces in closed-loop lanes from turn 0.
Status CheckLiveReplies(const BenchSettings& s, const trace::Trace& trace) {
  const std::string_view format = trace::TraceFormatName(trace.format);
  if (!trace.text_messages) {
    return Status::InvalidArgument(fmt::format(
        "--assistant-turns live with --dataset-name {}: live replies are built for the text "
        "traces (dag_jsonl, multi_turn) only; a hash-id trace's history is pre-canned",
        format));
  }
  if (s.max_concurrency <= 0 || s.fixed_schedule) {
    return Status::InvalidArgument(fmt::format(
        "--assistant-turns live: a turn must wait for its predecessor's reply; replay {} in "
        "closed-loop lanes (--max-concurrency N, no --fixed-schedule)",
        format));
  }
  if (s.trajectory_start_min_ratio || s.trajectory_start_max_ratio ||
      s.warmup_requests_per_lane > 0) {
    return Status::InvalidArgument(
        "--assistant-turns live with a start position or --warmup-requests-per-lane: the "
        "turns before the start (and one-token warm-ups) have no live reply to thread; start "
        "every tree at turn 0");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<TraceWorkload> LoadTraceWorkload(const BenchSettings& s) {
  const bool chat = IsChatEndpoint(s);
  TraceWorkload w;
  trace::TraceLoadOptions options;
  SB_ASSIGN_OR_RETURN(options.format, trace::ParseTraceFormat(s.dataset_name));
  options.mooncake_block_tokens = s.trace_block_tokens;
  SB_ASSIGN_OR_RETURN(w.trace, trace::LoadTrace(s.dataset_path, options));
  if (w.trace.text_messages && !chat) {
    return Status::InvalidArgument(
        fmt::format("--dataset-name {} on {}: its turns are chat messages; replay them on "
                    "--endpoint /v1/chat/completions (--backend openai-chat)",
                    s.dataset_name, EffectiveEndpoint(s)));
  }
  w.chat = chat;
  w.live_replies = s.assistant_turns == "live";
  if (w.live_replies) SB_RETURN_IF_ERROR(CheckLiveReplies(s, w.trace));

  struct Item {
    int64_t timestamp_ms;
    TraceWorkload::Ref ref;
  };
  std::vector<Item> items;
  int64_t tokens = 0;
  w.lanes = s.max_concurrency > 0 && !s.fixed_schedule;
  for (size_t t = 0; t < w.trace.trees.size(); ++t) {
    const trace::TraceTree& tree = w.trace.trees[t];
    for (size_t c = 0; c < tree.conversations.size(); ++c) {
      for (size_t k = 0; k < tree.conversations[c].turns.size(); ++k) {
        const trace::TraceTurn& turn = tree.conversations[c].turns[k];
        if (!w.lanes && turn.timestamp_ms < 0) {
          return Status::InvalidArgument(
              fmt::format("{}: a turn with no timestamp cannot go on a fixed schedule: give "
                          "--max-concurrency N to replay the sessions closed-loop in N lanes",
                          turn.where));
        }
        tokens += turn.input_tokens;
        items.push_back({turn.timestamp_ms, {t, c, k}});
      }
    }
  }
  SB_RETURN_IF_ERROR(
      CheckPromptMemory(static_cast<double>(tokens),
                        fmt::format("--dataset-path {}: {} turns", s.dataset_path, items.size())));
  // Lanes keep the job order LaneSchedule numbers (tree, conversation, turn).
  if (!w.lanes) {
    std::stable_sort(items.begin(), items.end(),
                     [](const Item& a, const Item& b) { return a.timestamp_ms < b.timestamp_ms; });
  }
  trace::PromptSynthesisSettings synthesis;
  synthesis.seed = s.seed;
  synthesis.vocab_size = s.random_vocab_size;
  const int64_t first_ms = items.empty() ? 0 : items.front().timestamp_ms;
  for (size_t i = 0; i < items.size(); ++i) {
    w.refs.push_back(items[i].ref);
    const trace::TraceTurn& turn = w.turn(i);
    const trace::TraceTree& tree = w.trace.trees[items[i].ref.tree];
    Prompt p;
    // A chat replay's messages need the server's tokenizer: MakeChatTracePrompts.
    if (!chat) {
      p.token_ids = trace::SynthesizePrompt(synthesis, tree.scope, turn.hash_ids, turn.input_tokens,
                                            w.trace.block_size_tokens,
                                            /*fresh_key=*/i);
    }
    p.prompt_tokens = turn.input_tokens;
    p.prompt_tokens_exact = true;
    p.max_tokens = turn.output_tokens;
    w.prompts.measured.push_back(std::move(p));
    // The first turn at 0 (AIPerf --fixed-schedule-auto-offset), the rest at their
    // recorded gaps divided by the speed-up.
    w.offsets_ns.push_back(w.lanes ? 0
                                   : static_cast<int64_t>(std::llround(
                                         static_cast<double>(items[i].timestamp_ms - first_ms) *
                                         1e6 / s.trace_speedup)));
  }
  w.prompts.note = fmt::format(
      "{} {}: {} turns in {} trees, {} at --trace-speedup {}; {}", s.dataset_name, s.dataset_path,
      items.size(), w.trace.trees.size(),
      w.lanes ? fmt::format("{} closed-loop lanes", s.max_concurrency) : "fixed schedule",
      s.trace_speedup,
      w.trace.text_messages
          ? (w.live_replies ? "the recorded chat messages with the server's replies (live "
                              "assistant turns)"
                            : "the recorded chat messages (pre-canned assistant turns)")
      : chat ? fmt::format("chat messages from hash ids ({}-token blocks, pre-canned assistant "
                           "turns, cache bust {})",
                           w.trace.block_size_tokens, s.cache_bust)
             : fmt::format("token ids from hash ids ({}-token blocks)", w.trace.block_size_tokens));
  return w;
}

namespace {

void Subtract(const trace::HitTally& seed, trace::HitTally* t) {
  t->requests -= seed.requests;
  t->hit_trace_blocks -= seed.hit_trace_blocks;
  t->trace_blocks -= seed.trace_blocks;
  t->hit_tokens -= seed.hit_tokens;
  t->prompt_tokens -= seed.prompt_tokens;
  t->not_admitted -= seed.not_admitted;
}

// The expected tallies of the requests as the server saw them: each one pinned from
// its send to its completion, in time order (a completion before a send at the same
// instant). Lanes' warm-ups (records flagged warm-up whose index is a turn) seed the
// cache and are left out of the tallies, as the server's counters are read after
// them; `seeding` counts them.
trace::HitTally Expected(const TraceWorkload& w, const std::vector<metrics::RequestRecord>& records,
                         int64_t block_tokens, int64_t capacity_blocks,
                         int64_t* seeding = nullptr) {
  struct Event {
    int64_t t_ns;
    bool start;
    size_t prompt;
    bool warmup;
  };
  std::vector<Event> events;
  for (const metrics::RequestRecord& r : records) {
    if ((r.warmup && !w.lanes) || !r.ok() || r.index < 0 ||
        static_cast<size_t>(r.index) >= w.refs.size()) {
      continue;
    }
    events.push_back({r.t_sent_ns, true, static_cast<size_t>(r.index), r.warmup});
    events.push_back({r.t_done_ns, false, static_cast<size_t>(r.index), r.warmup});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.t_ns != b.t_ns ? a.t_ns < b.t_ns : (!a.start && b.start);
  });
  trace::ExpectedHitSettings settings;
  settings.engine_block_tokens = block_tokens;
  settings.capacity_blocks = capacity_blocks;
  trace::PrefixHitModel model(settings);
  std::vector<int64_t> handle(w.refs.size(), -1);
  trace::HitTally seed;  // what the warm-ups added
  for (const Event& e : events) {
    if (e.start) {
      const trace::TraceTree& tree = w.trace.trees[w.refs[e.prompt].tree];
      if (e.warmup) {
        // Sent for one token.
        trace::TraceTurn turn = w.turn(e.prompt);
        turn.output_tokens = 1;
        const trace::HitTally before = model.tally();
        handle[e.prompt] = model.Start(tree.scope, turn, w.trace.block_size_tokens).handle;
        trace::HitTally added = model.tally();
        Subtract(before, &added);
        seed.requests += added.requests;
        seed.hit_trace_blocks += added.hit_trace_blocks;
        seed.trace_blocks += added.trace_blocks;
        seed.hit_tokens += added.hit_tokens;
        seed.prompt_tokens += added.prompt_tokens;
        seed.not_admitted += added.not_admitted;
      } else {
        handle[e.prompt] =
            model.Start(tree.scope, w.turn(e.prompt), w.trace.block_size_tokens).handle;
      }
    } else {
      model.Finish(handle[e.prompt]);
    }
  }
  trace::HitTally out = model.tally();
  Subtract(seed, &out);
  if (seeding != nullptr) *seeding = seed.requests;
  return out;
}

}  // namespace

json::object PrefixCacheReport(const TraceWorkload& w,
                               const std::vector<metrics::RequestRecord>& records,
                               const BenchSettings& s, const std::optional<PrefixCacheSide>& server,
                               metrics::Validity* validity) {
  json::object o;
  o["trace_block_tokens"] = w.trace.block_size_tokens;
  o["engine_block_tokens"] = s.engine_block_tokens;
  o["engine_kv_blocks"] = s.engine_kv_blocks;
  if (w.live_replies) {
    // The history the server saw is its own replies, whose tokens the trace cannot
    // know: no expected fraction is computed and none is compared.
    o["expected"] = json::object{
        {"not_applicable",
         "live assistant turns: each later turn's history holds the server's replies, which "
         "the trace does not record, so its prefix blocks cannot be predicted"}};
    o["tolerance"] = s.prefix_hit_tolerance;
    ExpectedHits none{0, true, "", ""};
    none.applicable = false;
    CompareServerHits(server, none, s.prefix_hit_tolerance, &o, validity);
    return o;
  }
  int64_t seeding = 0;
  const trace::HitTally infinite = Expected(w, records, s.engine_block_tokens, 0, &seeding);
  json::object expected;
  expected["requests"] = infinite.requests;
  // Lanes' warm-ups: fed to the model before the measured requests, not counted.
  expected["seeding_requests"] = seeding;
  expected["prompt_tokens"] = infinite.prompt_tokens;
  // AIPerf's theoretical_prefix_cache_hit: trace blocks, infinite cache.
  expected["block_fraction"] = HitFraction(infinite.block_fraction());
  expected["token_fraction_infinite"] = HitFraction(infinite.token_fraction());
  double expected_rate = infinite.token_fraction();
  std::string model = "an infinite cache";
  if (s.engine_kv_blocks > 0) {
    const trace::HitTally lru = Expected(w, records, s.engine_block_tokens, s.engine_kv_blocks);
    expected["token_fraction_lru"] = HitFraction(lru.token_fraction());
    expected["lru_not_admitted"] = lru.not_admitted;
    expected_rate = lru.token_fraction();
    model = fmt::format("an LRU of {} blocks", s.engine_kv_blocks);
  } else {
    expected["token_fraction_lru"] = nullptr;
  }
  o["expected"] = std::move(expected);
  o["tolerance"] = s.prefix_hit_tolerance;

  const std::string what = "the trace replayed against " + model;
  ExpectedHits expected_hits{expected_rate, infinite.prompt_tokens > 0, what,
                             "the replay did not build the prefixes it meant to, or the engine "
                             "does not cache them"};
  CompareServerHits(server, expected_hits, s.prefix_hit_tolerance, &o, validity);
  return o;
}

void AddTurnFields(const TraceWorkload& w, size_t prompt, json::object* line) {
  if (prompt >= w.refs.size()) return;
  const TraceWorkload::Ref& r = w.refs[prompt];
  const trace::TraceTree& tree = w.trace.trees[r.tree];
  (*line)["tree"] = tree.id;
  (*line)["conversation"] = tree.conversations[r.conversation].id;
  (*line)["turn_index"] = r.turn;
}

}  // namespace servebench::client
