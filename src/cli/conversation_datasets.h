// speed_bench and spec_bench points get their file at plan time. A perf-eval nightly
// workload names no file (`dataset-path` is reserved: its runner prepares SPEED-Bench
// into $VLLM_SPEED_BENCH_DIR, default /tmp/vllm-speed-bench, and passes that folder);
// servebench reads local files and downloads nothing, so `run` and `nightly` take
//
//   --speed-bench-dir DIR   the folder holding <subset>.jsonl as NVIDIA's prepare.py
//                           writes it (default: $VLLM_SPEED_BENCH_DIR), for speed_bench
//                           points whose recipe names no dataset_path
//
// BindConversationDatasets loads each distinct (file, subset, category) once, here,
// every row checked, so an absent file, a bad row or an empty category is an error of
// the plan naming the point and the file (file:line for a row), before any engine
// starts. A bound point's load names the file's absolute path and its ids are
// reassigned. Reads the files and, without the flag, the environment.
#pragma once

#include <string>

#include "common/status.h"
#include "recipe/recipe.h"

namespace servebench::cli {

// Binds every speed_bench / spec_bench point of `plan`; the others are left as they are.
// `speed_bench_dir` is --speed-bench-dir ("" = $VLLM_SPEED_BENCH_DIR, if set).
// InvalidArgument naming the point when a speed_bench point has no file to read, a
// file does not load, or --speed-bench-dir is given and no point is speed_bench.
Status BindConversationDatasets(recipe::Plan* plan, const std::string& speed_bench_dir);

}  // namespace servebench::cli
