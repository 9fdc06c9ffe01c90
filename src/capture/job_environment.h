// The job an InferenceX single-node matrix row becomes: the environment InferenceX's
// benchmark workflow gives the row's benchmark script, and which script that is.
//
// Environment: `.github/workflows/benchmark-tmpl.yml` at 843c6254 (its `env:` block
// and the launch step: RUNNER_NAME, RUNNER_TYPE, RESULT_FILENAME, GPU_COUNT), plus
// PORT (benchmark_lib.sh's and most launchers' 8888) and the GPUs the allocation
// makes visible (AMD: ROCR_VISIBLE_DEVICES, NVIDIA: CUDA_VISIBLE_DEVICES, 0..N-1).
// Secrets (HF_TOKEN, MODAL_TOKEN_*) get placeholder values, never real ones.
// The runner launchers' site-specific exports (staged MODEL_PATH folders, per-node
// ports, cache mounts) are not given, so scripts take their stand-alone path:
// download into HF_HUB_CACHE and serve by hub id.
//
// Script: what runners/launch_<cluster>.sh picks, `benchmarks/single_node/<sub>/`
// `<exp-name up to _>_<precision>_<gpu>` + `_<framework>[_mtp].sh` when that exists,
// else + `[_trt|_atom][_mtp].sh` (the launchers' older names; `_trt` for framework
// trt, `_atom` for atom). <sub> is agentic/ for agentic rows, else fixed_seq_len/.
// Some launchers try only the second form; at 843c6254 both rules pick the same
// script for every row (checked over the full sweep).
//
// Paths in the values are InferenceX's (/workspace is the checkout, as the
// container mounts it); the sandbox maps them. Pure functions of their inputs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "recipe/point.h"
#include "recipe/recipe_model.h"

namespace servebench::capture {

struct JobEnvironment {
  std::map<std::string, std::string> vars;
  // The script relative to the checkout ("benchmarks/single_node/fixed_seq_len/
  // dsr1_fp8_h200.sh"); empty when none of `candidates` exists.
  std::string script;
  std::vector<std::string> candidates;  // tried in this order
};

// The job of one single-node InferenceX point (source_format "inferencex").
// `runners` names the node (RUNNER_NAME: the label's first node; "<label>_00"
// when runners.yaml does not list it). `root` is the checkout, to find the script.
// InvalidArgument for a multinode point or a point of another format.
StatusOr<JobEnvironment> JobEnvironmentFor(const recipe::Point& point,
                                           const recipe::RunnerConfig& runners, int port,
                                           const std::string& root);

// Secret variable -> the placeholder the job gets instead of a token.
const std::map<std::string, std::string>& SecretPlaceholders();

// GitHub Actions' toJson of an InferenceX metadata object ({name, version}):
// pretty-printed with two-space indentation, keys in the given order.
std::string ActionsToJson(const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace servebench::capture
