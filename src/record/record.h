// Record: the one stored result of one attempted point (design.md "Core types").
// What ran (identity, configuration), where and with what (provenance, build), what
// happened (status, failure class), what was measured (the headline metrics, derived
// once by metrics/headline.h; accuracy per eval task), and the artefacts kept verbatim
// (the Point, the raw vllm-compatible summary, the eval output, file paths).
//
// Every consumer — run/ reports, store/, verdict/, web/, the CLI — reads these fields;
// none reads a record's JSON keys. The JSON form (record_json.h) is the one codec;
// record/README.md documents it and shows an example generated from this code.
// Adding a field: README.md "Adding a field".
// Plain values; thread-safe to read.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/failure_class.h"
#include "metrics/headline.h"
#include "recipe/point.h"

namespace servebench::record {

// The record JSON layout this servebench writes. 1: the first release (no headline,
// no typed accuracy, single-node GPU counts only); 2: adds headline, repetitions,
// accuracy and the deployment fields pp, pcp_size, num_speculative_tokens, disagg,
// prefill_gpus, decode_gpus, topology, role_metrics. Records of every version up to this one are
// read (record_json.h migrates them); newer ones are refused.
inline constexpr int kSchemaVersion = 2;

// What became of the point.
enum class RecordStatus {
  kOk,       // measured and valid
  kFailed,   // could not be measured (failure_class says why)
  kInvalid,  // measured, but broke a validity rule (invalid_reasons): never compared
  kBlocked,  // a known-blocked recipe that failed: expected, never red
  kSkipped,  // not run (the canary failed before it)
};
std::string_view RecordStatusName(RecordStatus status);  // "ok", "failed", ...
// nullopt when `name` is not one of the five.
std::optional<RecordStatus> RecordStatusFromName(std::string_view name);

// How the engine was deployed: what determines the GPU count and what a
// configuration label (config_label.h) shows.
struct Deployment {
  int tp = 1, pp = 1, pcp_size = 1, ep = 1;
  bool dp_attn = false;
  recipe::SpecMethod spec_method = recipe::SpecMethod::kNone;
  int num_speculative_tokens = 0;  // draft length; 0 without speculative decoding
  bool disagg = false;             // prefill and decode on separate workers
  // GPUs behind the server (metrics.md §6): single node num_gpus = tp × pp × pcp;
  // multinode prefill_gpus P > 0, decode_gpus D, num_gpus = P + D.
  int num_gpus = 0;
  int prefill_gpus = 0;
  int decode_gpus = 0;
  // A serve session of several processes: its roles in a few characters,
  // "1P×TP2 2D×TP2" or "2A×TP4" (recipe::DescribeTopology); "" for one server.
  std::string topology;

  // The topology per-GPU throughput is divided by.
  metrics::GpuTopology gpus() const;

  bool operator==(const Deployment&) const = default;
};

// The build under test, carried on every record; `regress` compares builds.
struct Build {
  std::string image;   // engine image
  std::string commit;  // engine commit, e.g. vLLM's git sha
  std::string date;    // YYYY-MM-DD (UTC): the night

  bool operator==(const Build&) const = default;
};

struct Provenance {
  std::string servebench_version;
  std::string git_revision;  // of servebench
  std::string host;
  std::string engine_version;  // from the engine's GET /version, "" when unknown
  std::string started_at;      // RFC 3339 UTC
  std::string ended_at;        // RFC 3339 UTC, "" when unknown

  bool operator==(const Provenance&) const = default;
};

// One accuracy task's result (evals.md), as the verdicts judge it.
struct TaskAccuracy {
  std::string task;  // e.g. "gsm8k"
  double value = 0;  // fraction correct, 0..1
  int64_t n = 0;     // items scored
  // Absolute floor from the recipe's eval gate; nullopt when none.
  std::optional<double> floor;
  // Per-item correctness by doc id, when the eval kept it: enables the paired
  // (McNemar) test.
  std::map<std::string, bool> items;

  bool operator==(const TaskAccuracy&) const = default;
};

// Files the run wrote beside the record.
struct Artifacts {
  std::string engine_log;   // the engine's output
  std::string requests;     // per-request JSONL of the load run
  std::string gpu_metrics;  // the GPU power samples (InferenceX's gpu_metrics.csv shape)
  // InferenceX's own result file of the point, when it has one: a multinode point's
  // vllm-bench JSON (run/inferencex_result.h), an agentic point's aggregate
  // (run/agentic_result.h).
  std::string inferencex_result;
  // `servebench run --profile`: the folder the engine's profiler wrote its traces into
  // for the point's serve session (one trace per profiled point; the sim names each); a
  // session of several processes: the root, with one folder per engine process below it.
  std::string profile;
  // The engine's /metrics scraped every --metrics-interval-s over the measured phase:
  // one JSON line per scrape (metrics/scrape_series.h), KV usage over time.
  std::string server_metrics;

  bool operator==(const Artifacts&) const = default;
};

// What each role of a serve session of several processes did during the load run,
// from its processes' own /metrics (disagg.md §6): role ("prefill", "decode",
// "aggregated", "router") -> metric name -> value summed over the role's processes;
// counters as the change over the run, gauges as their value at its end.
using RoleMetrics = std::map<std::string, std::map<std::string, double>>;

struct Record {
  // ---- Identity ----
  std::string record_id;   // sha256(point_id + "/" + run_id)
  std::string run_id;      // one per servebench invocation
  std::string point_id;    // sha256 of the point's canonical JSON
  std::string session_id;  // points that share one live server
  std::string series_id;   // the point without the build: what regress follows
  std::string recipe;
  std::string source_file;
  std::string source_format;  // "native", "inferencex", "nightly"
  // ---- What ran ----
  std::string engine, image, model, precision, hardware, runner;
  std::optional<int64_t> isl, osl;  // tokens per request
  std::optional<int64_t> concurrency;
  Deployment deployment;
  bool simulated = false;  // engine sim: every number is a simulated-time number
  // A rehearsal (`run --engine sim`): the engine the simulated point stands in for;
  // "" for a recipe written for the sim and for real engines.
  std::string stands_in_for;
  // engine sim: wall seconds per simulated second its clock ran at (the numbers are
  // simulated time whatever it is; docs/metrics.md); nullopt for real engines.
  std::optional<double> time_scale;
  // ---- What happened ----
  RecordStatus status = RecordStatus::kSkipped;
  FailureClass failure_class;                // empty when ok
  std::string failure_reason;                // one line for people
  bool interrupted = false;                  // stopped by the user mid-point; partial result kept
  std::vector<std::string> invalid_reasons;  // validity codes (metrics.md §8)
  bool blocked = false;                      // the recipe is known to fail
  std::string blocked_reason, blocked_link;
  bool unblocked = false;  // blocked, yet it passed
  Build build;
  Provenance provenance;
  // ---- What was measured ----
  // The load run's headline; nullopt when no load run completed. With repetitions,
  // the per-key median of the runs (run/aggregate.h).
  std::optional<metrics::Headline> headline;
  // Each repetition's own headline when the point ran more than once (the raw runs
  // of `regress`'s rerun test); empty otherwise.
  std::vector<metrics::Headline> repetitions;
  std::vector<TaskAccuracy> accuracy;
  // Per role of a serve session of several processes; empty for one server.
  RoleMetrics role_metrics;
  // ---- Artefacts, kept verbatim ----
  std::optional<boost::json::object> point;    // the whole Point (recipe/point_json)
  std::optional<boost::json::object> summary;  // the vllm-compatible result of the run
  std::optional<boost::json::object> evals;    // eval results and gate verdicts
  Artifacts artifacts;

  // The night the record belongs to: build.date, else the date of
  // provenance.started_at; "" when neither.
  std::string Night() const;

  bool operator==(const Record&) const = default;
};

}  // namespace servebench::record
