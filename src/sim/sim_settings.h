// SimSettings: everything `servebench sim` is told on its command line. Flags that
// mean the same as a vLLM flag carry vLLM's name (noted per field); the rest are
// the simulator's own. cli/sim.cc maps flags onto this struct; Validate() checks
// it. docs/simulator.md lists the flags.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/role_settings.h"

namespace servebench::sim {

struct SpecConfig {
  std::string method;  // eagle, eagle3, mtp, draft_model, ngram; empty = off
  std::string model;   // draft model name (recorded only)
  int num_speculative_tokens = 0;
  std::string rejection_sample_method;     // "synthetic" or empty/"strict"
  double synthetic_acceptance_length = 0;  // target AL; 0 = golden table or default (see docs)
};

// Where the target AL comes from when --speculative-config gives none: a golden
// table (recipe/golden_al.h), else per-position acceptance 0.7 (docs/simulator.md).
struct GoldenAlSource {
  std::string table;     // e.g. "minimaxm3_eagle3_gqa"; empty = none
  std::string model;     // model key in the table; empty = the catalogue model key
  bool thinking = true;  // thinking_on / thinking_off column
};

// Parses vLLM's --speculative-config JSON; unknown keys are kept out with an error
// naming them, except ones vLLM accepts that do not change the simulation
// (attention_backend, draft_tensor_parallel_size, ...), which are ignored.
StatusOr<SpecConfig> ParseSpecConfig(const std::string& json);

struct FaultSettings {
  double http_500_rate = 0;          // fraction of generation requests answered 500
  int disconnect_after_tokens = -1;  // close the socket after this many tokens; -1 = off
  double disconnect_rate = 1.0;      // ... for this fraction of requests
  double stall_ms = 0;               // hold a stream's events for this long ...
  int stall_after_tokens = 1;        // ... once it has sent this many tokens
  double stall_rate = 1.0;           // ... for this fraction of requests
  double malformed_sse_rate = 0;     // fraction of streams that get one malformed event
  int malformed_after_tokens = 1;    // ... after this many tokens
  double ready_after_s = 0;          // /health answers 503 until this long after start
  std::string exit_at_startup;       // log this line and exit before listening; empty = off
  // With exit_at_startup: exit only while this file does not exist, creating it, so the
  // next start serves (an engine that fails once: a port taken between pick and bind).
  std::string exit_once_marker;
  int exit_code = 1;              // exit code for exit_at_startup and crash_after_requests
  int crash_after_requests = -1;  // exit when request N+1 arrives; -1 = off
};

struct SimSettings {
  // ---- Serving ----
  std::string host = "127.0.0.1";
  int port = 8000;                     // 0 picks a free port (printed at startup)
  std::string served_model_name;       // vLLM --served-model-name; empty = the model's hub name
  std::string model = "llama-3.1-8b";  // catalogue key or hub name
  std::string hardware = "h200";
  // The serving engine the sim stands in for (data/sim/engines.yaml: its request,
  // tokenization and per-step CPU costs). The sim takes vLLM's flags whatever it is.
  std::string engine_profile = "vllm";
  std::string catalogue_dir;  // empty = built-in catalogue
  // ---- Parallelism and memory (vLLM names) ----
  int tensor_parallel_size = 1;
  int data_parallel_size = 1;
  bool enable_expert_parallel = false;
  int max_model_len = 0;  // 0 = the model's max context
  int max_num_seqs = 256;
  int max_num_batched_tokens = 8192;
  int long_prefill_token_threshold = -1;  // vLLM's; -1 = the engine profile's default
  std::string kv_cache_dtype = "auto";
  std::string precision;  // weights (--quantization-like); empty = model default
  double gpu_memory_utilization = 0.9;
  int stream_interval = 1;  // tokens per SSE event at most (vLLM --stream-interval)
  // A reasoning model, as vLLM serves one with --reasoning-parser: the first this many
  // output tokens of every chat request stream as `delta.reasoning_content` (and
  // count in usage, as reasoning tokens do), the rest as content or a tool call.
  // 0 = none. /v1/completions has no reasoning channel.
  int reasoning_tokens = 0;
  // ---- Prefix caching (vLLM names; sim/prefix_cache.h) ----
  bool enable_prefix_caching = false;   // vLLM --enable-prefix-caching (off: vLLM v0's default)
  int block_size = 16;                  // vLLM --block-size: tokens per KV block
  int64_t num_gpu_blocks_override = 0;  // vLLM --num-gpu-blocks-override; 0 = the perf model's
  // CPU offload tier (sim/cpu_kv_tier.h; docs/simulator.md "KV offload"): host memory
  // for evicted prefix blocks, decimal GB over all GPUs (0 = none; needs prefix
  // caching), and its host link, GB/s per GPU and direction (PCIe Gen5 x16 achieved).
  double kv_offload_gb = 0;
  double kv_offload_gb_per_s = 50;
  SpecConfig spec;
  GoldenAlSource golden_al;
  // ---- Simulation ----
  // Wall seconds per simulated second; 0 = no waiting. Whenever it is not 1 every
  // chunk carries its simulated time (docs/simulator.md, "Time").
  double time_scale = 1.0;
  // The wall clock (CLOCK_MONOTONIC ns) at simulated time 0; 0 = when the engine
  // starts. A serve session gives its sim processes one (environment variable
  // SERVEBENCH_SIM_CLOCK_ORIGIN_NS, engine/serve_session.h) so their stamps are one
  // clock (docs/simulator.md, "Roles").
  int64_t clock_origin_ns = 0;
  double build_slowdown = 1.0;  // multiplies every step time (a "slower build")
  // The simulated board's power sensor: DCGM_FI_DEV_POWER_USAGE is the mean over this
  // many simulated seconds (1 = NVIDIA's power.draw on Hopper; power_model.h).
  double power_average_s = 1.0;
  // The GPUs this process plays, as a serve session places it (engine/session_plan.h):
  // their indices on its node (as CUDA_VISIBLE_DEVICES names them; empty = 0 .. TP×DP−1,
  // else exactly TP×DP of them) and the node's index in the session. /metrics labels
  // each GPU with its index and a UUID made of both (PowerModel::GpuUuid), so the
  // workers of one session export distinct GPUs.
  std::vector<int> gpu_indices;
  int node_index = 0;
  uint64_t seed = 0;
  int eos_after_mean_tokens = 0;  // without ignore_eos: mean natural output length; 0 = never EOS
  int max_waiting_requests = 0;   // more waiting than this gets 429; 0 = unlimited
  bool send_time_field = false;   // add "servebench_send_ns" to every SSE chunk
  // As vLLM's --api-key: /v1/* answers 401 without "Authorization: Bearer <key>";
  // /health, /metrics, /version, /tokenize stay open. Empty = no key.
  std::string api_key;
  // Profiling (vLLM's VLLM_TORCH_PROFILER_DIR; step_profiler.h): with a directory,
  // POST /start_profile and /stop_profile write a Chrome trace of the engine's steps
  // there; empty = no profiler, and both endpoints answer 404 as vLLM's do. Created at
  // startup when missing.
  std::string profile_dir;
  // ---- Answering mode (evals) ----
  std::string answer_mode = "off";  // off | oracle | file
  double answer_error_rate = 0;
  std::string answer_file;
  // ---- Faults ----
  FaultSettings faults;
  // ---- Role in a serve session of several processes (role_settings.h) ----
  RoleSettings role;
};

Status Validate(const SimSettings& settings);

}  // namespace servebench::sim
