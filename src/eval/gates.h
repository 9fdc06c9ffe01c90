// Accuracy gates, each usable alone or together (shared reference evals.md §4-5):
//   floor        every exact_match,<filter> metric >= the floor for (model, task)
//                from a thresholds file; nothing checked, failed or interrupted
//                samples -> FAIL
//   McNemar      paired parity with a baseline on the same doc_ids: exact
//                two-sided binomial test on the discordant pairs
//   equivalence  greedy outputs of two servers on the same prompts, compared
//                from the start; identical fraction and first divergence
// Every report carries its numbers and converts to JSON. Pure; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace servebench::eval {

enum class Verdict { kPass, kWarn, kFail, kInvalid };
std::string_view VerdictName(Verdict verdict);  // "PASS", "WARN", "FAIL", "INVALID"

// ---- Floor ----

// The semantics of InferenceX utils/evals/thresholds.yaml: `default: {task:
// floor}` and `models: {model-prefix: {task: floor}}`; model entries win.
struct Thresholds {
  std::map<std::string, double> defaults;
  std::map<std::string, std::map<std::string, double>> models;
};
StatusOr<Thresholds> ParseThresholds(std::string_view yaml_text, std::string_view source_name);
StatusOr<Thresholds> LoadThresholds(const std::string& path);

// InferenceX's --min-score default, used when neither table names the task.
inline constexpr double kDefaultMinScore = 0.85;

struct FloorCheck {
  std::string metric;  // e.g. "exact_match,strict-match"
  double value = 0;
  bool passed = false;
};
struct FloorReport {
  Verdict verdict = Verdict::kFail;
  std::string task;
  std::string model_prefix;
  double floor = 0;
  std::string floor_source;  // "models.<prefix>.<task>", "default.<task>" or "min_score"
  std::vector<FloorCheck> checks;
  std::vector<std::string> reasons;  // why it failed, one line each
};

// The model prefix used for lookup when none is given: the model name's last
// path component, lower-cased, up to its first '-' ("dsr1-fp8" -> "dsr1").
std::string ModelPrefixOf(std::string_view model);

// Judges an lm-eval-shaped results.json object.
FloorReport FloorGate(const boost::json::object& results_json, const Thresholds& thresholds,
                      std::string_view model_prefix, std::string_view task,
                      double min_score = kDefaultMinScore);

// ---- Protocol identity (evals.md §5 L0) ----

// PASS when both lm-eval results objects carry the same task hash for `task`
// (servebench's protocol_hash: template, stops, shots, seed, max tokens); INVALID
// when they differ or either lacks one — such runs are not comparable.
struct ProtocolReport {
  Verdict verdict = Verdict::kInvalid;
  std::string baseline_hash;
  std::string candidate_hash;
};
ProtocolReport ProtocolGate(const boost::json::object& baseline_results,
                            const boost::json::object& candidate_results, std::string_view task);
boost::json::object ToJson(const ProtocolReport& report);

// ---- McNemar paired parity ----

struct PairedCounts {
  size_t n = 0;         // documents scored in both runs
  size_t b = 0;         // baseline right, candidate wrong
  size_t c = 0;         // baseline wrong, candidate right
  size_t unpaired = 0;  // doc_ids scored in only one run (ignored)
};

// Pairs two correctness maps (doc_id -> correct) on doc_id.
PairedCounts PairCorrectness(const std::map<size_t, bool>& baseline,
                             const std::map<size_t, bool>& candidate);

// doc_id -> correct for `filter` ("flexible-extract" by default in the gate) from
// an lm-eval samples JSONL (ours or lm-eval's); failed samples are left out.
StatusOr<std::map<size_t, bool>> CorrectnessFromSamples(const std::string& path,
                                                        std::string_view filter);

// Exact two-sided p = min(1, 2 * P[X <= min(b, c)]), X ~ Binomial(b + c, 1/2).
double McNemarExactP(size_t b, size_t c);

struct McNemarReport {
  PairedCounts counts;
  double drop_points = 0;  // 100 * (b - c) / n
  double p_value = 1;      // exact
  double chi2 = 0;         // continuity-corrected, for reference
  double chi2_p_value = 1;
  double alpha = 0.01;
  double max_drop_points = 1.0;
  Verdict verdict = Verdict::kPass;
  std::string reason;
};

// FAIL when the candidate is worse (b > c) with p < alpha, or the drop exceeds
// max_drop_points; INVALID when no document was scored in both; else PASS.
McNemarReport McNemarGate(const PairedCounts& counts, double alpha = 0.01,
                          double max_drop_points = 1.0);

// ---- Greedy output equivalence ----

struct EquivalenceItem {
  size_t doc_id = 0;
  bool identical = false;
  bool matched = false;         // candidate starts with the reference
  size_t first_divergence = 0;  // byte offset of the first difference
};
struct EquivalenceReport {
  size_t n = 0;
  size_t identical = 0;
  size_t matched = 0;
  double matched_fraction = 0;
  double threshold = 0.90;            // PASS at or above
  double warn_floor_fraction = 0.66;  // vLLM: FAIL unless matches > int(0.66 * n)
  Verdict verdict = Verdict::kFail;
  std::vector<EquivalenceItem> divergent;  // every non-identical item, in doc order
};

// Byte offset of the first difference (the shorter length when one is a prefix
// of the other; the length when equal).
size_t FirstDivergence(std::string_view a, std::string_view b);

// Compares outputs by doc_id (only ids present in both count).
EquivalenceReport EquivalenceGate(const std::map<size_t, std::string>& reference,
                                  const std::map<size_t, std::string>& candidate,
                                  double threshold = 0.90);

// doc_id -> response text from a samples JSONL (failed samples left out).
StatusOr<std::map<size_t, std::string>> ResponsesFromSamples(const std::string& path);

boost::json::object ToJson(const FloorReport& report);
boost::json::object ToJson(const McNemarReport& report);
boost::json::object ToJson(const EquivalenceReport& report);

}  // namespace servebench::eval
