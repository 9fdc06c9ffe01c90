// Predict: runs a closed-loop benchmark against the simulated engine in simulated
// time — the same Engine, Scheduler, PerfModel and acceptance draws as
// `servebench sim` serves with, but no sockets and no waiting — and summarizes it
// the way metrics.md defines (TTFT, TPOT, throughput per GPU). A sweep of a
// 70B model over concurrency 1..512 takes well under a second. Used by
// `servebench sim --predict`, the curve-shape test and docs/simulator.md's tables.
// Thread-safe (pure function of its inputs).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "sim/engine.h"

namespace servebench::sim {

struct PredictLoad {
  int concurrency = 1;
  int isl = 1024;        // prompt tokens per request
  int osl = 1024;        // output tokens per request (ignore_eos)
  int num_requests = 0;  // 0 = 10 × concurrency (InferenceX's default), at least 16
};

struct PredictedPoint {
  int concurrency = 0;
  int completed = 0;
  double duration_s = 0;
  double mean_ttft_ms = 0, median_ttft_ms = 0;
  double mean_tpot_ms = 0, median_tpot_ms = 0;
  double output_tok_s = 0, total_tok_s = 0;
  double output_tok_s_per_gpu = 0, total_tok_s_per_gpu = 0;
  double interactivity = 0;      // 1000 / median TPOT, tok/s/user
  double acceptance_length = 0;  // 1 + accepted/drafts (spec decoding), else 0
  uint64_t preemptions = 0;
};

StatusOr<PredictedPoint> PredictClosedLoop(const PerfModel& perf,
                                           const SchedulerSettings& scheduler,
                                           const EngineSettings& engine, const PredictLoad& load);

// A Markdown table of points (one row per concurrency).
std::string PredictTable(const std::vector<PredictedPoint>& points);

}  // namespace servebench::sim
