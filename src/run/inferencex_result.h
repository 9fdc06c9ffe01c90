// InferenceX result files of a serve session of several processes: besides its
// record, each point of a multinode (or disaggregated) session that completed a load
// run gets its vllm-bench-compatible result JSON written under the name InferenceX's
// multinode harness gives it (recipe/result_name.h, disagg.md §3):
//
//   <out>/inferencex/<RESULT_FILENAME>_conc<C>_gpus_<G>_ctx_<P>_gen_<D>.json
//
// so InferenceX's own processor (utils/process_result.py) reads servebench's results
// and takes P and D from the name, as it does for srt-slurm's. Single-server points
// get none (their record is the result). Thread-safe: pure apart from the file write.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "recipe/point.h"
#include "run/backends.h"

namespace servebench::run {

// The file's path for `point` run on `runner_node`, `session_concurrencies` being the
// concurrencies of its serve session (the row's list). "" for a single-server point
// or a topology that does not place (preflight refused those).
std::string InferenceXResultPath(const std::string& out_dir, const recipe::Point& point,
                                 const std::string& runner_node,
                                 const std::vector<int>& session_concurrencies);

// Writes `load.summary` to InferenceXResultPath (atomically). Returns the path, ""
// when the point gets no file (single server, or no completed load run).
StatusOr<std::string> WriteInferenceXResult(const std::string& out_dir, const recipe::Point& point,
                                            const std::string& runner_node,
                                            const std::vector<int>& session_concurrencies,
                                            const LoadOutcome& load);

}  // namespace servebench::run
