// RunSettings: how `servebench run` (and `nightly`) executes a plan. What the user
// asked for; the executor records it beside every result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "record/record.h"
#include "telemetry/telemetry_settings.h"

namespace servebench::run {

struct RunSettings {
  // ---- Where results go ----
  std::string out_dir = "out";           // records/, logs/, requests/, report.md
  std::string db_url = "servebench.db";  // SQLite path or postgresql:// URL; "" = no store
  // ---- Control ----
  bool dry_run = false;  // print every serve session's command; launch nothing
  bool resume = false;   // skip points already recorded ok in the store
  // The canary is the first session's lowest-concurrency point; when it fails the
  // sweep stops with its failure class unless this is set.
  bool continue_after_canary_failure = false;
  bool echo_engine_log = false;  // copy engine output to stderr, prefixed
  // Restart a session's server after an engine death and go on with the rest of its
  // points (at most this many restarts per session).
  int max_restarts_per_session = 2;
  // ---- Load defaults (a point's LoadSpec wins when set) ----
  int default_prompts_per_concurrency = 10;  // num_prompts = max(concurrency × this, 20)
  int min_prompts = 20;
  double request_timeout_s = 600;
  // Hooks around every point's measured window (client/server_hooks.h, docs/run.md):
  // POST /reset_prefix_cache after the point's warm-ups, and /start_profile +
  // /stop_profile around its measured phase. With `profile` each serve session's
  // engine is started with its stack's profiler directory (vLLM and the sim:
  // VLLM_TORCH_PROFILER_DIR, SGLang: SGLANG_TORCH_PROFILER_DIR) set to
  // <out>/profiles/<session log name>/, recorded as each point's artifacts.profile; a
  // session of several processes gets one folder per engine process below that root,
  // and the hooks go to each of them (docs/run.md "Hooks").
  bool reset_prefix_cache = false;
  bool profile = false;
  // Validity rule client_saturated (metrics.md §8): P99 issue delay above this marks a
  // point invalid. Raise it only on a machine shared with other work (tests in CI).
  double client_issue_delay_limit_ms = 1.0;
  // Validity rule server_lagged (docs/metrics.md): a simulated engine whose P99
  // lateness against its own schedule exceeds this (simulated ms) makes a point
  // invalid. Time compression magnifies the host's delays by 1/time scale.
  double server_lag_limit_ms = 1.0;
  // ---- GPU power (docs/power.md) ----
  telemetry::TelemetrySettings telemetry;
  // Idle power, measured once per serve session after the engine is ready and
  // before its first point, for this long in the source's seconds (the simulated
  // engine's seconds on the sim); 0 = not measured. Reported, never subtracted.
  double idle_power_s = 10;
  // ---- Engines ----
  std::string servebench_binary;   // the `servebench` that runs `sim`; default: ourselves
  double readiness_timeout_s = 0;  // 0 = recipe, else the adapter's default
  // Runner profile: run engines whose point has an image inside a container
  // ("docker", "podman", "enroot", "srun"; "" = on the host), with these extra
  // container arguments (e.g. "--gpus all") and host:container mounts.
  std::string container;
  std::vector<std::string> container_args;
  std::vector<std::string> container_mounts;
  // Inside a Slurm allocation (an array task of --executor slurm): each process of a
  // serve session of several processes runs as an srun step on its node(s).
  bool slurm_steps = false;
  // ---- Evals (points with run_eval) ----
  std::string eval_data_path;        // gsm8k test JSONL; "" = synthetic on sim, error otherwise
  std::string eval_fewshot_path;     // gsm8k train JSONL for the n-shot examples
  std::string eval_thresholds_path;  // floors (data/evals/thresholds.yaml format); "" = 0.85
  // ---- Identity ----
  // The build under test, carried on every record (`regress` compares builds): the
  // engine image (recorded; overrides nothing; default the point's), commit, and the
  // night YYYY-MM-DD (default: today, UTC).
  record::Build build;
  std::string run_id;  // default: <UTC time>-<host>-<pid>
};

// The first field a run cannot start with, naming its `servebench run` flag, the value
// and what is allowed: deadlines and limits in range (common/limits.h), a real
// calendar --build-date, a --run-id safe for file names and SQL (common/safe_id.h),
// a --db of a known form, a known --container. Empty build.date / run_id pass (the
// command fills them in). Touches nothing; `run`, `nightly` and `validate` call it
// before any engine starts.
Status Validate(const RunSettings& settings);

}  // namespace servebench::run
