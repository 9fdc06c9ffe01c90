// Fidelity: the simulator against published measurements. Each point of
// data/sim/published_points.yaml (compiled in) names a configuration — model,
// hardware, the engine it was measured on, parallelism, precision, lengths and a
// closed-loop concurrency — and what was measured (median TTFT, median TPOT, output
// tokens/s per GPU). EvaluateFidelity predicts each with `--predict`'s closed loop
// (predict.h) and reports predicted / measured − 1 per metric, and the median
// |error| per metric over the points. `servebench sim --fidelity` prints the table;
// docs/simulator.md keeps it; fidelity_test holds the medians to their targets.
// Thread-safe (pure function of its inputs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/catalogue.h"

namespace servebench::sim {

struct PublishedPoint {
  std::string id;
  std::string source;
  std::string model, hardware, engine;
  int tensor_parallel = 1, data_parallel = 1;
  bool expert_parallel = false;
  std::string precision;  // empty = the model's default
  std::string kv_cache_dtype = "auto";
  int max_num_seqs = 256, max_num_batched_tokens = 8192;
  int isl = 0, osl = 0, concurrency = 1;
  int num_prompts = 0;  // 0 = 10 × concurrency (InferenceX)
  // Measured; nullopt when the source does not give it.
  std::optional<double> median_ttft_ms, median_tpot_ms, output_tok_s_per_gpu;
};

struct FidelityRow {
  PublishedPoint point;
  double median_ttft_ms = 0, median_tpot_ms = 0, output_tok_s_per_gpu = 0;  // predicted
  // predicted / measured − 1; nullopt when not measured.
  std::optional<double> ttft_error, tpot_error, throughput_error;
};

struct FidelityReport {
  std::vector<FidelityRow> rows;
  // Median |error| over the points that measured the metric.
  double median_abs_ttft_error = 0, median_abs_tpot_error = 0, median_abs_throughput_error = 0;
};

// The built-in published points (data/sim/published_points.yaml).
StatusOr<std::vector<PublishedPoint>> BuiltInPublishedPoints();
// Parses a published-points document; errors name the point and field.
StatusOr<std::vector<PublishedPoint>> ParsePublishedPoints(const std::string& yaml);

// Predicts every point with `catalogue`; fails on a point the catalogue cannot
// simulate (unknown model, weights that do not fit), naming it.
StatusOr<FidelityReport> EvaluateFidelity(const Catalogue& catalogue,
                                          const std::vector<PublishedPoint>& points);

// The report as a Markdown table (one row per point) followed by the medians.
std::string FidelityTable(const FidelityReport& report);

}  // namespace servebench::sim
