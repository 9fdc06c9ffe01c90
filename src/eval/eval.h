// servebench eval: accuracy tasks run against a live OpenAI-compatible server,
// scored exactly as lm-evaluation-harness scores them, plus the gates that decide
// whether a configuration (speculative decoding, FP8 KV cache, ...) still answers
// correctly. This is the module's public header; `servebench eval` (cli/eval.cc)
// and `servebench run` call only what is declared here and in the headers it
// includes.
//
//   RunEval()            one task against one server -> EvalResult
//   ToResultsJson()      lm-eval-shaped results.json (existing tooling reads it)
//   SamplesJsonl()       lm-eval-shaped per-sample lines (two per document, one per filter)
//   WriteEvalOutputs()   both files into a folder, atomically
//   gates.h              floor, McNemar parity, greedy equivalence
//
// Thread-safety: RunEval starts its own worker threads and joins them before it
// returns; everything else is pure.
#pragma once

#include <atomic>
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "eval/dataset.h"
#include "eval/eval_settings.h"
#include "eval/gates.h"

namespace servebench::eval {

// One document's outcome. A failed sample (the server never answered after the
// retries) is not scored: it is neither right nor wrong and is counted apart.
struct SampleResult {
  enum class State { kNotRun, kScored, kFailed };
  State state = State::kNotRun;
  std::string prompt;
  std::string response;
  std::string strict_answer;    // strict-match extraction ("[invalid]" when none)
  std::string flexible_answer;  // flexible-extract extraction
  bool strict_correct = false;
  bool flexible_correct = false;
  std::string error;  // for kFailed: the last error
  uint32_t attempts = 0;
  double latency_ms = 0;  // last attempt's request to reply, wall clock
};

struct MetricValue {
  double value = 0;
  double stderr_value = 0;  // standard error of the mean (lm-eval mean_stderr)
  bool has_stderr = false;  // false with fewer than two scored samples ("N/A")
};

struct EvalResult {
  EvalSettings settings;
  std::vector<GsmDoc> docs;           // the evaluated documents (after --limit)
  std::vector<SampleResult> samples;  // parallel to docs; index = doc_id
  size_t n_original = 0;              // documents in the data file
  size_t n_scored = 0;
  size_t n_failed = 0;
  size_t n_not_run = 0;  // left when interrupted or when the server stopped answering
  bool interrupted = false;
  // Why questions were left unsent although nobody interrupted: "" normally, else e.g.
  // "the server stopped answering: 16 requests in a row timed out ...".
  std::string stopped_reason;
  MetricValue strict_match;
  MetricValue flexible_extract;
  double wall_seconds = 0;
  std::string protocol_hash;  // SHA-256 of what makes two runs comparable (evals.md §5 L0)
  std::string date_utc;       // ISO 8601, when the run started
};

// Runs the task: loads data, builds every prompt, probes the server
// (client/server_probe.h: nothing sent to a server that does not answer), sends
// them with settings.num_concurrent workers, scores replies. Returns an error only
// when the run could not start (bad settings, unreadable data, bad URL, Unavailable
// for a server that fails the probe); server failures become failed samples. When
// as many requests in a row as there are workers time out, the server is taken to
// have stopped answering: the rest are left not run (stopped_reason says so). When `cancel` turns
// true, in-flight requests are abandoned and the result holds what was scored so far (interrupted =
// true). Writes nothing; call WriteEvalOutputs.
StatusOr<EvalResult> RunEval(const EvalSettings& settings, const std::atomic<bool>* cancel);

// Scores an already-collected response for `doc` under `protocol`.
void ScoreSample(Protocol protocol, const GsmDoc& doc, SampleResult& sample);

// Recomputes n_scored/n_failed/n_not_run and both metrics from samples.
void Summarize(EvalResult& result);

boost::json::object ToResultsJson(const EvalResult& result);

// A compact summary for a Record's "evals" field: task, protocol, endpoint,
// protocol_hash, the four lm-eval metric keys, n_scored / n_failed / n_not_run,
// interrupted, wall_seconds.
boost::json::object ToJson(const EvalResult& result);
std::string SamplesJsonl(const EvalResult& result);

// Writes output_dir/results.json and output_dir/samples.jsonl.
Status WriteEvalOutputs(const EvalResult& result, const std::string& output_dir);

}  // namespace servebench::eval
