// StepProfiler: the sim's answer to vLLM's torch profiler (/start_profile,
// /stop_profile). Between Start() and Stop() it keeps every engine step the
// scheduler planned (Engine::SetStepTracer); Stop() writes them as one Chrome
// trace-event JSON file into the profile directory (--profile-dir, or vLLM's
// VLLM_TORCH_PROFILER_DIR) and returns its path. The trace is what the simulated
// engine did, nothing more:
//   - one complete event ("ph": "X") per step, named "prefill" when the step computes
//     any prompt tokens (decode sequences may ride along) and "decode" otherwise;
//   - "ts" and "dur" in simulated microseconds (the engine's clock, docs/simulator.md
//     "Time"), so a compressed --time-scale still shows the physical step times;
//   - "args": batch_size (sequences in the step), prefill_seqs, prefill_tokens,
//     decode_seqs, decode_context_tokens (Σ context of the decoding sequences).
// Files are named sim-<pid>-<n>.trace.json (n counts the profiles of this process),
// so several workers of one session may share a directory. Not thread-safe: the
// engine's loop thread only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "sim/perf_model.h"

namespace servebench::sim {

class StepProfiler {
 public:
  explicit StepProfiler(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  bool active() const { return active_; }
  // Starts keeping steps; FailedPrecondition when a profile is already running.
  Status Start();
  // A step the engine planned (simulated ns); kept only while active.
  void OnStep(int64_t start_ns, int64_t end_ns, const StepShape& shape);
  // Writes the kept steps and stops; the file's path. FailedPrecondition when no
  // profile is running; Internal (naming the file) when it cannot be written.
  StatusOr<std::string> Stop();

 private:
  struct Step {
    int64_t start_ns, end_ns;
    StepShape shape;
  };
  std::string dir_;
  bool active_ = false;
  int profiles_ = 0;
  std::vector<Step> steps_;
};

}  // namespace servebench::sim
