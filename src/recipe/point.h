// The core planning types: SpecDecoding, ServeSpec, LoadSpec and Point
// (shared/design.md, "Core types"). recipe/ produces them; engine/ renders a
// ServeSpec into a server command; client/ runs a LoadSpec; run/ walks Points
// grouped by session. Plain values, no behaviour beyond identity helpers.
//
// Identity (recipe/recipe.h: PointToJson, AssignIds; docs/recipes.md): `point_id`
// is the SHA-256 (hex) of the point's canonical JSON (sorted keys, no whitespace)
// with point_id, session_id and source_file left out (moving a file changes no
// identity); `session_id` is the same hash with the concurrency and the fields
// derived from it also left out (load.concurrency, load.num_prompts, exp_name,
// run_eval, eval_tasks, evals, eval_only), so points that differ only in
// concurrency share one live server.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace servebench::recipe {

enum class SpecMethod { kNone, kMtp, kEagle, kEagle3, kDraftModel, kNgram };

// The method's one spelling: in native recipes, point JSON, records, matrix tables
// and vLLM's --speculative-config.
constexpr const char* SpecMethodName(SpecMethod m) {
  switch (m) {
    case SpecMethod::kNone:
      return "none";
    case SpecMethod::kMtp:
      return "mtp";
    case SpecMethod::kEagle:
      return "eagle";
    case SpecMethod::kEagle3:
      return "eagle3";
    case SpecMethod::kDraftModel:
      return "draft_model";
    case SpecMethod::kNgram:
      return "ngram";
  }
  return "none";
}

// How the drafts are verified.
enum class AcceptanceMode {
  kReal,             // the engine verifies drafts with the target model
  kSyntheticTarget,  // the engine is told to accept drafts to a target acceptance length
  kSyntheticGolden,  // as kSyntheticTarget, the target looked up in a golden AL table
};

struct SpecDecoding {
  SpecMethod method = SpecMethod::kNone;
  std::string draft_model;         // empty for mtp / ngram
  int num_speculative_tokens = 0;  // drafts per step; 0 when method is kNone
  AcceptanceMode acceptance = AcceptanceMode::kReal;
  // Target acceptance length (accepted drafts + 1 per step), resolved at expansion
  // time for both synthetic modes; 0 under kReal.
  double synthetic_acceptance_length = 0;
  // For kSyntheticGolden: which table and entry the target came from.
  std::string golden_table;     // e.g. "minimaxm3_eagle3_gqa"
  std::string golden_model;     // e.g. "minimax-m3"
  bool golden_thinking = true;  // thinking_on / thinking_off column
  // Engine-specific extras carried through verbatim (e.g. vLLM's "attention_backend").
  std::map<std::string, std::string> extra;
};

// One worker role of a serve session of several processes (InferenceX `prefill` /
// `decode` workers; a native recipe's `prefill`/`decode`/`aggregated`). The session's
// topology — GPUs per replica, nodes, how InferenceX counts them — is derived from
// these by recipe/topology.h, the one place that counts GPUs.
struct WorkerSpec {
  int num_workers = 0;  // replicas of this role; decode 0 = aggregated (prefill holds the workers)
  int tp = 1, pp = 1, ep = 1;
  bool dp_attn = false;
  int dcp_size = 1, pcp_size = 1;
  std::string hardware;                          // optional metadata; set on both roles or neither
  std::vector<std::string> additional_settings;  // KEY=VALUE, exported as env
  // Nodes the role occupies (InferenceX PREFILL_NODES/DECODE_NODES, native `nodes`);
  // 0 = derived from its GPUs and serve.gpus_per_node. In the point JSON only when set.
  int nodes = 0;
};

// A file a verbatim command reads (TensorRT-LLM's config YAML, a chat template),
// written before the command starts. `path` is as the command names it, relative to
// the folder the command runs in.
struct CommandFile {
  std::string path;
  std::string contents;
};

// A server the command needs running beside it, as written (InferenceX's agentic
// scripts start `mooncake_master` or `lmcache server` for the KV offload tier before
// vLLM): started before the command, in the same folder, supervised with it and
// stopped after it. Its files are the command's (VerbatimCommand::files).
struct AuxiliaryCommand {
  std::vector<std::string> argv;           // argv[0] is looked up on PATH
  std::map<std::string, std::string> env;  // added to servebench's, as the script gave it
  // NAME -> SOURCE set from servebench's environment at launch, as serve.env_from does
  // for the command (a device list the script copied, a token).
  std::map<std::string, std::string> env_from;
};

// A router the command's server sits behind, as written (InferenceX's DP-attention
// scripts start `vllm-router` or `python3 -m sglang_router.launch_router` on PORT in
// front of the engine on PORT+1): started once the command is ready, in the same
// folder, ready when GET /health and /v1/models answer on `port`; the load goes to
// it. Stopped before the command. Not the topology's `router` (serve.router_name),
// which names a router servebench renders for a session of several processes.
struct RouterCommand {
  std::vector<std::string> argv;                // argv[0] is looked up on PATH; empty = none
  std::map<std::string, std::string> env;       // added to servebench's, as the script gave it
  int port = 0;                                 // where it listens: the client's target
  std::map<std::string, std::string> env_from;  // as AuxiliaryCommand's
};

// A server command taken as written from elsewhere: captured from an InferenceX
// launch script (capture/), or written out in a native recipe. When `argv` is set
// the engine adapter runs it exactly, in the session's work folder, instead of
// rendering one from the ServeSpec's fields, which then describe the deployment
// (identity, exp names, per-GPU metrics) without shaping the command.
// An argv element (or an env value of the ServeSpec, an auxiliary server or the
// router) may be a hub snapshot word, a folder known only at launch
// (recipe/hub_snapshot.h).
struct VerbatimCommand {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH; empty = render
  int port = 0;                   // where the command listens (its --port), for readiness
  std::vector<CommandFile> files;
  // The folder the command names as its own, "" when any will do. InferenceX's
  // commands may name files under /workspace, where its container mounts the
  // checkout: then `files` are relative to it, and the command runs only in a
  // container, with the session's work folder mounted there.
  std::string folder;
  // Where it came from, e.g. "inferencex:benchmarks/single_node/fixed_seq_len/x.sh".
  std::string source;
  // Started in order before the command (AuxiliaryCommand); empty for most.
  std::vector<AuxiliaryCommand> auxiliary;
  // In front of the command, when set (RouterCommand): then `port` is the engine's
  // and router.port the session's.
  RouterCommand router;
};

// Everything that starts a server. Two points with equal ServeSpecs share one server.
struct ServeSpec {
  std::string engine;             // "vllm", "sglang", "trtllm", "llamacpp", "sim"
  std::string image;              // container image; empty runs on the host
  std::string model;              // model path or hub name as the engine takes it
  std::string served_model_name;  // name clients send; empty = model
  std::string precision;          // "fp8", "fp4", "bf16", "mxfp8", ...
  std::string hardware;           // "h200", "mi355x", ... (from the runner)
  int tp = 1, pp = 1, ep = 1, dp = 1;
  bool dp_attn = false;
  int dcp_size = 1, pcp_size = 1;
  int max_model_len = 0;       // 0 = engine default
  std::string kv_cache_dtype;  // empty = engine default
  SpecDecoding spec;
  std::vector<std::string> extra_args;     // appended to the command, in order
  std::map<std::string, std::string> env;  // added to the engine's environment
  // NAME -> SOURCE: NAME is set to servebench's $SOURCE at launch when SOURCE is set
  // (InferenceX's ROCR_VISIBLE_DEVICES -> HIP_VISIBLE_DEVICES mapping), so the value
  // is the launching machine's, not a recorded one.
  std::map<std::string, std::string> env_from;
  // Commands run in order before the engine starts, with its environment (a launch
  // script's `hf download DRAFT` into the shared HF cache); one failing fails the
  // session. argv[0] is looked up on PATH.
  std::vector<std::vector<std::string>> prepare;
  VerbatimCommand command;         // set: run it as written (see VerbatimCommand)
  double readiness_timeout_s = 0;  // 0 = the engine adapter's default
  // Simulated engine only: `servebench sim` options (catalogue model, hardware,
  // time scale, fault flags) as flag → value.
  std::map<std::string, std::string> sim_options;
  // Simulated engine only: the engine this point rehearses (`run --engine sim` turns a
  // vllm/sglang/trtllm point into its simulated twin; run/sim_rehearsal.h); empty for
  // a recipe written for the sim. In the point JSON only when set.
  std::string stands_in_for;
  // ---- Added by recipe/ for InferenceX deployments (all optional) ----
  std::string framework;  // InferenceX `framework` verbatim ("sglang-disagg", "trt", ...)
  // A serve session of several processes: prefill/decode below describe the workers
  // (InferenceX multinode rows; native recipes with prefill/decode/aggregated), a
  // router in front of them. The processes may share one node (the simulator's).
  bool multinode = false;
  bool disagg = false;         // prefill and decode on separate workers
  WorkerSpec prefill, decode;  // multinode only; aggregated: the workers are `prefill`, decode 0
  std::string router_name, router_version;  // e.g. "sglang-router", "0.3.2"
  std::string kv_p2p_transfer;  // KV connector: "nixl", "mooncake", "mori", ...; empty = none
  // Serve-session topology (multinode only; in the point JSON only when set, so the
  // identity of single-node points is unchanged): GPUs per node of the runner (0 = the
  // hardware's, recipe/topology.h) and the router's policy ("" = the router's default).
  int gpus_per_node = 0;
  std::string router_policy;
  std::string kv_offloading = "none";  // "none" or "dram" (agentic)
  std::string kv_offload_backend, kv_offload_backend_version;
  int total_cpu_dram_gb = 0;  // DRAM budget for KV offload, 0 = none
};

// A simulated engine's time scale: wall seconds per simulated second (its sim option
// "time-scale"; 1, real time, when not given). nullopt for an engine that is not the
// sim. The one reading of that option (the load's schedule, the record, the report).
inline std::optional<double> SimTimeScale(const ServeSpec& s) {
  if (s.engine != "sim") return std::nullopt;
  auto it = s.sim_options.find("time-scale");
  return it == s.sim_options.end() ? 1.0 : std::strtod(it->second.c_str(), nullptr);
}

// A point that searches instead of running one load: a native scenario's `search:`
// (docs/search.md, "In a recipe"). `servebench run` runs `servebench search` on the
// session's warm server, each probe being the point's load at the probed concurrency
// or rate. Kept as the recipe wrote it: search/ is the one reading of the limits and
// of the range rules (run/search_point.h), checked before anything starts
// (cli/preflight.h). In the point JSON only when `vary` is set; unset optionals are
// search's defaults.
struct SloSearchSpec {
  std::string vary;               // "concurrency" or "rate"; "" = not a search
  std::vector<std::string> slos;  // "<stat><=<ms>", as `servebench search --slo`
  std::optional<double> min, max;
  std::optional<int> step;           // concurrency: bisection stops this close
  std::optional<double> resolution;  // rate: bisection stops within this fraction
  std::optional<int> repeats, max_probes;
  // Where the recipe wrote it ("scenarios[0].search"), for messages; no identity.
  std::string field_path;
  bool enabled() const { return !vary.empty(); }
};

// What load is offered at one point.
struct LoadSpec {
  std::string scenario = "fixed-seq-len";  // or "agentic-coding"
  std::string endpoint = "/v1/completions";
  // "random", "random-prefix", "prefix_repetition", "custom", "sharegpt"
  std::string dataset = "random";
  std::string dataset_path;
  int isl = 0, osl = 0;  // input / output tokens per request
  // dataset "prefix_repetition" (a prefix pool, client/prefix_pool.h): each prompt is a
  // prefix of prefix_len tokens and isl - prefix_len of its own; prefix_reuse_ratio of
  // the prompts take their prefix from a pool of num_prefixes. In the point's identity
  // only for that dataset.
  int prefix_len = 0, num_prefixes = 0;
  double prefix_reuse_ratio = 1.0;
  double random_range_ratio = 0;  // InferenceX semantics unless noted in extra
  int concurrency = 1;            // max requests in flight
  int num_prompts = 0;            // 0 = the run's default (concurrency × 10)
  double request_rate_per_s = 0;  // 0 = closed loop at `concurrency`
  int num_warmups = 0;
  // > 0: num_warmups is this × concurrency instead (InferenceX's client warms up with
  // 2 × CONC), so points that differ only in concurrency still share a session.
  int warmups_per_concurrency = 0;
  bool ignore_eos = true;
  int duration_s = 0;   // agentic scenarios: run length
  int repetitions = 1;  // nightly: odd count, median kept
  // ---- Added by recipe/ ----
  std::string backend;  // client API: "openai" (completions) or "openai-chat"
  // Extra load-generator options as `--flag value` tokens (nightly `args`), in order.
  std::vector<std::string> extra_args;
  // Set: the point is a search (concurrency 0 when it varies the concurrency; with a
  // varied rate, `concurrency` caps the requests in flight, 0 = no cap), and
  // prompts_per_concurrency sizes a concurrency search's probes (0 = the run's default).
  SloSearchSpec search;
  int prompts_per_concurrency = 0;
};

// One accuracy task as the recipe asks for it.
struct EvalTask {
  std::string name;                               // "gsm8k", "swe-bench", ...
  int num_fewshot = -1;                           // -1 = the task's default
  std::map<std::string, std::string> model_args;  // lm-eval model_args, rendered as text
};

// One sweep point: one matrix row.
struct Point {
  std::string point_id;  // see top of file
  std::string session_id;
  std::string recipe;         // config key / workload name
  std::string source_file;    // where the recipe came from
  std::string source_format;  // "native", "inferencex", "nightly"
  std::string runner;         // runner label
  std::string model_prefix;
  std::string exp_name;
  ServeSpec serve;
  LoadSpec load;
  bool run_eval = false;
  std::vector<std::string> eval_tasks;  // e.g. {"gsm8k"} when run_eval
  bool nightly = false;
  // ---- Added by recipe/ ----
  bool eval_only = false;       // run the evals only, no throughput run
  std::vector<EvalTask> evals;  // details of eval_tasks (same order)
  // Blocked: the recipe is known to fail; a failure is recorded as blocked, a pass
  // as unblocked.
  bool blocked = false;
  std::string blocked_reason;
  std::string blocked_link;
  // serve.env names whose values are not secret: records, `matrix` and --dry-run show
  // their values; every other value is shown as kRedactedValue (recipe.h,
  // WithSecretsRedacted). How a point is shown, not what it is: left out of every id,
  // and of the point's JSON when empty (so points without it keep their ids).
  std::vector<std::string> env_not_secret;
};

}  // namespace servebench::recipe
