// BenchSettings: everything one load run needs, as `servebench bench` flags (which
// keep `vllm bench serve`'s names and meanings) or run/ (from a LoadSpec) set it.
// What the run derived from these (worker count, resolved URLs) is recorded in the
// result's servebench.run object beside what was asked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "metrics/run_summary.h"
#include "net/tls_options.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::client {

// How --random-range-ratio r spreads lengths around L.
enum class RangeRatioSemantics {
  kVllm,        // uniform in [L·(1 − r), L·(1 + r)] (upstream vLLM)
  kInferenceX,  // uniform in [L·r, L] (InferenceX's fork; r = 1 means exactly L)
};

// One engine process of a serve session (a worker behind its router) whose own admin
// endpoints the hooks call: its prefix cache reset, its profiler started and stopped
// (BenchSettings::engine_processes).
struct EngineProcess {
  std::string name;      // "prefill[0]", "decode[1]": what a warning names
  std::string base_url;  // "http://127.0.0.1:PORT": its own API
};

enum class ArrivalProcess { kGamma, kConstant };  // gamma with burstiness 1 is Poisson

// Ramp-up of an open-loop rate over the run (vLLM --ramp-up-strategy): request i of N
// arrives at rate start + (end - start) * i/(N-1) (linear) or start * (end/start)^(i/(N-1))
// (exponential) after the previous one.
enum class RampStrategy { kNone, kLinear, kExponential };

// One stage of a multi-stage open-loop schedule (inference-perf `stages`): this rate for
// this long, directly after the stage before it.
struct LoadStage {
  double rate_per_s = 0;
  double duration_s = 0;
  // > 0: a closed-loop stage holding this many requests in flight instead of a rate
  // (`--stage concurrency=C@SECONDS`); a run's stages are all of one kind.
  int64_t concurrency = 0;
};

// Stop rules (docs/bench.md "Stop rules"): checked by the coordinator while the
// measured phase runs; the first that fires ends the issue window as the duration's end
// would (in-flight requests get grace_period_s, then are cut) and is recorded as
// servebench.run.ended_by ("error_rate" or "saturation") with servebench.run.stop_reason.
struct StopRuleSettings {
  // GuideLLM's --max-error-rate: stop once failed / finished exceeds this fraction
  // (0 < x <= 1), judged from error_rate_min_requests finished requests on. 0 = off.
  double max_error_rate = 0;
  int64_t error_rate_min_requests = 20;
  // Saturation (GuideLLM's --detect-saturation): the mean time from schedule to first
  // token (queueing included) of the requests completed in each window of
  // saturation_window_s (in the run's clock: simulated seconds against a compressed sim)
  // grew in each of the last saturation_windows windows, and the last window's mean is
  // at least saturation_factor x the lowest window mean seen: queues grow without bound.
  bool detect_saturation = false;
  double saturation_window_s = 2;
  int saturation_windows = 3;
  double saturation_factor = 2;
  bool any() const { return max_error_rate > 0 || detect_saturation; }
};

// One component of an ISL/OSL mixture (AIPerf's --sequence-distribution
// "ISL|SD,OSL|SD:WEIGHT;..."): this share of the prompts has input and output lengths
// drawn from normal distributions (sd 0 = exactly the mean), rounded, at least 1.
struct SequenceComponent {
  int64_t isl = 0;
  double isl_stddev = 0;
  int64_t osl = 0;
  double osl_stddev = 0;
  double weight = 0;  // relative; the weights need not sum to 1 or 100
};

// A prefix pool (--dataset-name prefix_repetition; docs/bench.md "Prefix pools"): vLLM's
// prefix_repetition dataset (its four flags and defaults) with servebench's reuse ratio.
// Every prompt is a prefix of prefix_len tokens and a fresh suffix of suffix_len tokens;
// round(reuse_ratio x num_prompts) measured prompts take their prefix from a pool of
// num_prefixes (the pool's groups differ in size by at most one prompt), the others a
// prefix of their own. Each pool prefix is sent once before the measured phase (a
// primer, not measured), so the measured phase finds every pool prefix cached: the share
// of measured prompts served from the pool is reuse_ratio (up to the rounding of one
// prompt), whatever the concurrency or arrival order.
struct PrefixPoolSettings {
  int64_t prefix_len = 256;  // tokens of each prefix (pool or own)
  int64_t suffix_len = 256;  // fresh tokens after it, >= 1 (no two prompts are equal)
  int64_t num_prefixes = 10;
  int64_t output_len = 128;  // max_tokens of every measured prompt and warm-up
  // Share of the measured prompts whose prefix is from the pool, in [0, 1]; 0 is the
  // no-sharing baseline of the same lengths (no pool, no primers).
  double reuse_ratio = 1.0;
};

struct BenchSettings {
  // ---- Target ----
  std::string base_url = "http://127.0.0.1:8000";  // http(s)://host:port[/prefix]
  // The API path. Empty: from the backend (EffectiveEndpoint), so `--backend
  // openai-chat` alone posts to /v1/chat/completions as `vllm bench serve` users expect.
  std::string endpoint;
  std::string backend = "openai";  // recorded; "openai-chat" sends chat bodies
  std::string model;               // model id (recorded as model_id)
  std::string served_model_name;   // "model" sent; empty = model
  std::string tokenizer_id;        // recorded only (no local tokenizer)
  std::vector<std::pair<std::string, std::string>> headers;  // --header KEY=VALUE
  // The API key is read from this environment variable and sent as a Bearer token;
  // it is never written to any output. "" = OPENAI_API_KEY when it is set (vLLM's
  // default), no key otherwise; a variable named here must be set (Validate).
  std::string api_key_env;
  std::string metrics_url;  // empty = base_url + "/metrics"
  bool scrape_metrics = true;
  // Seconds between /metrics scrapes during the measured phase, for KV usage over time
  // (servebench.kv_usage; metrics/scrape_series.h); 0 = only the scrapes before and
  // after it. AIPerf scrapes every 0.333 s; 1 s matches InferenceX's timeslices.
  double metrics_interval_s = 1.0;
  net::TlsOptions tls;  // https:// verification (--ssl-ca-cert, --insecure)

  // ---- Hooks around the measured window (client/server_hooks.h, docs/bench.md) ----
  // POST <base>/reset_prefix_cache after the warm-ups, right before the measured phase
  // (SGLang bench_serving --flush-cache's order): the measured phase starts with an
  // empty prefix cache. A server without the endpoint is a warning, not an error.
  bool reset_prefix_cache = false;
  // POST <base>/start_profile right before the measured phase and /stop_profile right
  // after it (`vllm bench serve --profile`). The server writes the trace where its
  // profiler env says (vLLM and the sim: VLLM_TORCH_PROFILER_DIR; SGLang:
  // SGLANG_TORCH_PROFILER_DIR); without it vLLM answers 404: a warning.
  bool profile = false;
  // A serve session of several processes (run/): the engine processes (workers) whose
  // own /reset_prefix_cache, /start_profile and /stop_profile are called, all at once,
  // instead of base_url's (the router, which has neither a prefix cache nor a
  // profiler). Empty: base_url's.
  std::vector<EngineProcess> engine_processes;

  // ---- Event times ----
  // true: each SSE event is stamped with the kernel's receive time of the read that
  // delivered it (plain TCP, SO_TIMESTAMPNS), so the client's own scheduling delay
  // stays out of TTFT and ITL; a read the kernel did not stamp (and every TLS read)
  // falls back to the time it returned. false: always the time the read returned.
  bool kernel_rx_timestamps = true;

  // ---- Dataset ----
  // random | prefix_repetition | custom | sharegpt | speed_bench | spec_bench (vLLM's
  // names) | mooncake_trace | weka_trace | bailian_trace | dag_jsonl | multi_turn
  // (AIPerf's and vLLM's names; a trace replays every turn it holds, so --num-prompts is
  // set from it: docs/agentic.md)
  std::string dataset_name = "random";
  std::string dataset_path;  // custom (JSONL), sharegpt (JSON), a trace file or folder
  int64_t random_input_len = 1024;
  int64_t random_output_len = 128;
  double random_range_ratio = 0;  // 0 = every prompt exactly the given lengths
  RangeRatioSemantics range_ratio_semantics = RangeRatioSemantics::kVllm;
  int64_t random_prefix_len = 0;  // shared prefix tokens before each random prompt
  // ISL/OSL mixture for "random" (docs/bench.md "Length mixtures"); non-empty replaces
  // random_input_len / random_output_len / random_range_ratio. Component counts are
  // the weights' shares of the prompts exactly (largest remainder), their order
  // shuffled by the seed: the seed moves which prompt gets which component, never the
  // shares. The result's servebench.sequence_distribution has the realised shares and
  // lengths.
  std::vector<SequenceComponent> sequence_distribution;
  PrefixPoolSettings prefix_pool;     // --dataset-name prefix_repetition only
  int64_t random_vocab_size = 32000;  // token ids are drawn from [100, vocab)
  int64_t custom_output_len = 256;    // custom/sharegpt rows without a length
  // speed_bench / spec_bench (conversation_dataset.h, docs/bench.md "SPEED-Bench and
  // Spec-Bench"): dataset_path is SPEED-Bench's prepared folder (<subset>.jsonl in it)
  // or a file; each request is a row's first user turn, max_tokens the output length.
  std::string speed_bench_subset = "qualitative";  // --speed-bench-dataset-subset
  std::string speed_bench_category;                // --speed-bench-category; "" = all
  int64_t speed_bench_output_len = 4096;           // --speed-bench-output-len (vLLM's default)
  std::string spec_bench_category;                 // --spec-bench-category; "" = all
  int64_t spec_bench_output_len = 256;             // --spec-bench-output-len (vLLM's default)
  bool tokenize_chat_prompts = true;  // chat: use the server's /tokenize for exact lengths

  // ---- Tool calling (docs/bench.md "Tool-calling workload") ----
  // Every (chat) request carries `tools`, one function (request_builder.h
  // kToolCallWorkloadTool), and this `tool_choice`; the result counts each returned
  // call by whether its arguments are a JSON object (servebench.tool_calls).
  bool tool_call_workload = false;
  std::string tool_choice = "required";  // required | auto | none (OpenAI's values)

  // ---- Trace replay (docs/agentic.md) ----
  // With max_concurrency N a trace replays closed-loop in N lanes of live trees
  // (lane_schedule.h) unless fixed_schedule; without it, on its fixed schedule.
  bool fixed_schedule = false;     // AIPerf --fixed-schedule: timestamps even with a cap
  double trace_speedup = 1.0;      // recorded gaps (timestamps, delays) are divided by this
  int64_t trace_block_tokens = 0;  // mooncake_trace tokens per hash id (--isl-block-size); 0 = 512
  // AIPerf --cache-bust: "none" or "first_turn_prefix" (InferenceX's scenario locks it):
  // a chat replay's user messages start with "[rid:<12 hex>]" and a blank line, one
  // marker per tree and run, so no two runs or trees share a block.
  std::string cache_bust = "none";
  // "pre-canned" (default; InferenceX's AIPERF_DATASET_WEKA_LIVE_ASSISTANT_RESPONSES=0):
  // a text trace's history holds the recorded assistant text. "live": the server's
  // replies to the earlier turns (vLLM multi_turn's and AIPerf dag_jsonl's behaviour;
  // client/live_replies.h). Live needs a dag_jsonl or multi_turn replay in lanes.
  std::string assistant_turns = "pre-canned";
  // Why the replay's prompts are what they are, recorded as servebench.trace.prompts_note
  // ("" = null): `run` says why an agentic point stays on token ids (recipe/agentic_trace.h).
  std::string trace_prompts_note;
  int64_t engine_block_tokens = 16;  // the engine's KV block, for the expected hit fraction
  // The engine's KV pool in blocks, for the LRU expected fraction; 0 = infinite cache only.
  int64_t engine_kv_blocks = 0;
  // |server hit rate − expected| above this (a fraction, 0.03 = 3 points) makes the run
  // invalid with prefix_hits_disagree.
  double prefix_hit_tolerance = 0.03;
  // Closed-loop lanes only (lane_schedule.h; each is refused without lanes). Idle caps
  // are in the run's seconds, as --duration (simulated seconds against a compressed
  // sim), not divided by --trace-speedup: AIPerf's are runtime seconds.
  // AIPerf --trace-idle-gap-cap-seconds: once a live tree has had nothing in flight
  // this long, its pending timers move earlier so its next turn goes now. 0 = none.
  double trace_idle_gap_cap_s = 0;
  // AIPerf --system-idle-gap-cap-seconds: when nothing is in flight in any lane, every
  // pending timer moves earlier by one amount so the next turn goes within this. 0 = none.
  double system_idle_gap_cap_s = 0;
  // AIPerf --trajectory-start-min-ratio / -max-ratio, in [0, 1]: each lane's first tree
  // starts at root turn k drawn (by seed) in [⌈min·n⌉, min(⌊max·n⌋, n − 2)] of its n
  // turns; the turns before are not replayed. Both unset: turn 0 (one unset: 0 / 1).
  // Later trees start at turn 0.
  std::optional<double> trajectory_start_min_ratio, trajectory_start_max_ratio;
  // AIPerf --warmup-requests-per-lane: after the snapshot primer (turn k−1 of a lane
  // started at k > 0) each lane sends this many more root turns as one-token warm-up
  // requests, with no delays, before profiling starts. Not measured. 0 = none.
  int64_t warmup_requests_per_lane = 0;

  // ---- Load ----
  int64_t num_prompts = 1000;
  double request_rate_per_s = 0;  // 0 = infinite (all at once / closed loop)
  double burstiness = 1.0;        // gamma shape; 1 = Poisson
  ArrivalProcess arrival = ArrivalProcess::kGamma;
  int64_t max_concurrency = 0;  // 0 = unlimited
  int64_t num_warmups = 0;      // distinct prompts sent first, not measured
  uint64_t seed = 0;
  bool ignore_eos = false;
  std::optional<double> temperature;   // omitted from the body when unset
  std::string extra_body_json;         // JSON object merged into every request body
  bool continuous_usage_stats = true;  // ask for per-chunk usage (exact k per event)
  double request_timeout_s = 600;      // per-request deadline (wall time); 0 = none
  // The server's wall seconds per simulated second, when it is a simulated engine
  // with a compressed clock (servebench sim --time-scale): the arrival schedule is in
  // simulated time and is sent compressed by this factor. 1 = real time. The numbers
  // follow the server's stamps whatever this says (docs/metrics.md, "Simulated time").
  double time_scale = 1.0;
  int num_workers = 0;  // event-loop threads; 0 = chosen from concurrency

  // ---- Load shape (docs/bench.md "Ramps and stages") ----
  // Ramp-up: with kLinear/kExponential the open-loop rate moves from ramp_start_rps to
  // ramp_end_rps over the num_prompts requests (request_rate_per_s must be unset).
  RampStrategy ramp = RampStrategy::kNone;
  double ramp_start_rps = 0, ramp_end_rps = 0;
  // Stages of concurrency (LoadStage::concurrency > 0): a closed loop whose slots follow
  // the stages (PhasePlan::concurrency_steps), num_prompts the most it may send.
  // Stages of rate: non-empty = an open loop of back-to-back stages; stage k sends exactly
  // round(rate x duration) requests spread over its window (gamma/constant gaps scaled
  // to fill it, so the seed moves arrivals, never a stage's rate). The run is bounded by
  // the stages' total duration (grace_period_s applies), its prompts are sized by the
  // schedule, and each stage is summarised on its own (servebench.stages). Excludes
  // request_rate_per_s, ramp and duration_s.
  std::vector<LoadStage> stages;
  // Concurrency ramp (AIPerf's --concurrency-ramp-duration): > 0 with max_concurrency C
  // in a closed loop: the slots rise from 1 to C in equal steps over this many seconds
  // (slot c opens at (c - 1)/(C - 1) of it), then stay at C.
  double concurrency_ramp_s = 0;
  StopRuleSettings stop;

  // ---- Duration bound (docs/bench.md "Duration-bounded runs") ----
  // > 0: the measured phase issues requests for this many seconds from its start and
  // then stops issuing: an open-loop arrival scheduled at or after it is not sent, a
  // closed-loop slot released at or after it starts nothing. `num_prompts` is then the
  // most requests the run may issue (each prompt is sent once, so no prompt repeats into
  // a prefix cache); the result's servebench.run.ended_by says which bound ended it.
  // 0: the run is sized by num_prompts alone.
  double duration_s = 0;
  // With duration_s: how long requests still in flight when the duration ends may take
  // to finish (AIPerf's --benchmark-grace-period has the same default). Those still in
  // flight after it, and open-loop arrivals still waiting for a concurrency slot at the
  // end, are cancelled and recorded as failures of kind cut_at_end: counted, never
  // dropped, and the run is invalid (its latency tail would otherwise be censored).
  // 0 = cut at the end of the duration.
  double grace_period_s = 30;

  // ---- Metrics ----
  std::vector<double> percentiles = {90, 99, 99.9};  // servebench stats
  metrics::GoodputSlo goodput;
  metrics::GpuTopology gpus;
  bool spec_decoding = false;  // the server runs speculative decoding (validity)
  double client_issue_delay_limit_ms = 1.0;
  // Validity rule server_lagged: a simulated server's P99 lateness against its own
  // schedule above this (simulated ms) makes the run invalid.
  double server_lag_limit_ms = 1.0;

  // ---- GPU power (telemetry/, docs/power.md) ----
  // The source is opened before the warm-ups and sampled around the measured
  // window; the result's servebench.power holds the keys of reference power.md §3.
  telemetry::TelemetrySettings telemetry;
  // Idle power measured before the warm-ups for this long (s; 0 = not measured);
  // `run` measures it once per serve session instead and passes it in idle_power_w.
  double idle_power_s = 0;
  std::optional<double> idle_power_w;  // reported, never subtracted
  std::string idle_power_note;         // why it is missing, when run/ could not measure it

  // ---- Output (result header; vllm-bench-result.md) ----
  std::string label;                                          // empty = backend
  std::vector<std::pair<std::string, std::string>> metadata;  // --metadata KEY=VALUE
  std::vector<std::string> percentile_metrics = {"ttft", "tpot", "itl"};
  std::vector<double> metric_percentiles = {99};
  bool save_detailed = false;        // per-request arrays in the result
  bool keep_generated_text = false;  // generated text in records (--save-detailed)
  std::string requests_jsonl_path;   // per-request records; empty = none
  // The measured phase's /metrics scrapes (metrics/scrape_series.h); empty = none.
  std::string server_metrics_jsonl_path;
  bool progress = false;  // live progress line on stderr
};

// Every name --dataset-name takes: the prompt datasets (random, prefix_repetition,
// custom, sharegpt, speed_bench, spec_bench; vLLM's names), then the trace formats
// (trace::TraceFormat). The one list that validation, the help and errors read.
bool IsDatasetName(std::string_view name);
// The names joined for a message: "random, prefix_repetition, ... or multi_turn".
std::string DatasetNamesText();

// Returns the first invalid field with its value and the allowed range, naming the
// `servebench bench` flag: lengths, counts and the memory they imply against
// common/limits.h, finite numbers, an --api-key-env that is set, and refuses
// `--backend openai-chat` with a non-chat endpoint (its chat bodies would all be HTTP
// 400). Reads nothing but the environment; called before any socket is opened.
Status Validate(const BenchSettings& settings);

// True when the stages are concurrency stages (LoadStage::concurrency > 0).
bool ConcurrencyStages(const std::vector<LoadStage>& stages);

// Requests a multi-stage run sends: the sum of round(rate x duration) over its stages.
int64_t StagedRequests(const std::vector<LoadStage>& stages);

// The load-shape fields alone (ramp, stages and their exclusions); Validate calls it.
Status ValidateLoadShape(const BenchSettings& settings);

// The prompts an open-loop run bounded by duration_s needs for its schedule: the mean
// count plus a margin for gamma jitter (1.25 x rate x duration + 16), within
// limits::kMaxPromptsPerRun; num_prompts when the run is not open-loop and bounded.
int64_t PromptsForDuration(const BenchSettings& settings);

// The environment variable the API key is read from ("" when none is to be sent).
std::string ApiKeyVariable(const BenchSettings& settings);

// The endpoint requests go to: `endpoint` when set, else /v1/chat/completions for
// backend openai-chat and /v1/completions otherwise.
std::string EffectiveEndpoint(const BenchSettings& settings);

}  // namespace servebench::client
