// Agentic-coding points get their trace at plan time. An InferenceX agentic row names
// no file: its job resolves a Weka corpus by the model's prefix (reference agentic.md
// §1.2, `resolve_trace_source`) and replays it against the served model for the row's
// duration. BindAgenticTraces gives every such point of a plan the trace it replays:
//
//   --trace PATH   a trace file or folder (any format trace/ loads), or a folder that
//                  holds InferenceX's loader folders (PATH/<loader>/, e.g.
//                  PATH/semianalysis_cc_traces_weka_062126/): the point's own is used
//   --trace-format mooncake_trace | weka_trace | bailian_trace (default: detected from the content)
//   --duration S   the replay's length instead of the row's (3600 s in every row)
//
// Each distinct trace is loaded (every row checked) once, here, so an absent corpus or
// a bad row is an error of the plan, naming the point and the file, before any engine
// starts. The point's load then names the trace's format and path, and the endpoint
// AgenticEndpoint gives (below). Pure apart from reading the traces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "recipe/recipe.h"

namespace servebench::recipe {

struct AgenticTraceSettings {
  std::string trace_path;    // --trace; "" = none given
  std::string trace_format;  // --trace-format; "" = detected
  int duration_s = 0;        // --duration; 0 = the row's
};

// InferenceX's loader for a model prefix (its `resolve_trace_source` without
// WEKA_LOADER_OVERRIDE): the 1M-context families (dsv4*, glm5.2*, minimaxm3*, kimik3*)
// replay `semianalysis_cc_traces_weka_062126`, the rest its `_256k` cut.
std::string InferenceXTraceLoader(std::string_view model_prefix);

// The Hugging Face dataset behind a loader name ("semianalysisai/cc-traces-weka-062126"),
// for messages: InferenceX downloads it before the job; servebench reads local files.
std::string InferenceXTraceDataset(std::string_view loader);

// The prefix-cache flags InferenceX's agentic launch scripts pass (reference agentic.md
// §1.3), added to an agentic point's extra arguments when its command is rendered:
// vLLM and ATOM `--enable-prefix-caching --block-size 128` (256 for DeepSeek-V4) and
// `--max-num-seqs 2×CONC` (÷ TP with DP attention); SGLang `--max-running-requests
// 2×CONC` (its radix cache is on by default). TensorRT-LLM takes them in its YAML
// config, which only a captured command (--inferencex-root) carries. The batch cap
// follows the concurrency, so each concurrency is a serve session of its own, as each
// is a job of its own in InferenceX.
void AddAgenticLaunchFlags(ServeSpec* serve, int concurrency, std::string_view model_prefix);

// How an agentic-coding point's closed-loop lanes replay: what InferenceX's
// build_replay_cmd gives AIPerf (reference agentic.md §1.4). The one definition: the
// run's load (run/real_load_backend.cc) uses it, and capture/ compares a captured
// `aiperf profile` call with it.
struct AgenticLaneSettings {
  uint64_t seed = 42;                        // --random-seed
  double trace_idle_gap_cap_s = 300;         // --trace-idle-gap-cap-seconds
  double system_idle_gap_cap_s = 10;         // the inferencex-agentx-mvp scenario's cap
  double trajectory_start_min_ratio = 0.25;  // --trajectory-start-min-ratio
  double trajectory_start_max_ratio = 0.75;  // --trajectory-start-max-ratio
  int warmup_requests_per_lane = 10;         // --warmup-requests-per-lane
};
inline constexpr AgenticLaneSettings kInferenceXAgenticLanes{};

// Whether the engine `serve` starts (or, for a rehearsal, the one the sim stands in for)
// can count chat messages through its /tokenize: vLLM, SGLang, ATOM, TensorRT-LLM's
// OpenAI server and the sim can; llama-server's /tokenize takes text only.
bool TokenizesChatMessages(const ServeSpec& serve);

// The endpoint an agentic point replays on. InferenceX's rows send chat messages to
// /v1/chat/completions (reference agentic.md §1.4), which servebench makes of exact
// length through the engine's own tokenizer (docs/agentic.md, "Chat prompts"), with
// the cache bust the row's scenario locks (AgenticCacheBust). An engine that cannot
// count chat messages keeps token-id prompts on /v1/completions, and its result says
// why (AgenticTokenIdsReason).
std::string AgenticEndpoint(const ServeSpec& serve);

// AIPerf's --cache-bust for an agentic point replayed on `endpoint`: first_turn_prefix
// on the chat endpoint (InferenceX's inferencex-agentx-mvp scenario locks it), none on
// /v1/completions (token ids carry no marker; they change with the seed instead).
std::string AgenticCacheBust(std::string_view endpoint);

// Why an agentic point replays token ids on /v1/completions instead of InferenceX's chat
// path, for its result (servebench.trace.prompts_note); "" on the chat endpoint.
std::string AgenticTokenIdsReason(const ServeSpec& serve, std::string_view endpoint);

// A load that replays a trace (its dataset is a trace format), bound or written so.
bool IsTraceReplay(const LoadSpec& load);

// Tokens per KV block of the engine `serve` starts, as its command says: the sim's
// block-size option, else the last --block-size (vLLM, ATOM) or --page-size (SGLang)
// of the extra arguments or the verbatim command; 1 for llama.cpp, whose slots reuse
// the longest common token prefix of their cached prompt, not whole blocks. nullopt
// when none says: the client's expected hit fraction then assumes vLLM's default.
std::optional<int> KvBlockTokens(const ServeSpec& serve);

// Binds every agentic-coding point of `plan` (others are left as they are) and
// reassigns its ids. InvalidArgument naming the point when no --trace was given, the
// trace is absent or does not load, or --duration is given without agentic points.
Status BindAgenticTraces(Plan* plan, const AgenticTraceSettings& settings);

}  // namespace servebench::recipe
