// capture/: InferenceX launch capture. An InferenceX master config holds only the
// search space; the server command lives in the benchmark script each row runs.
// Capture runs that script, once per distinct job environment (TP, EP, DP-attn,
// spec decoding, ISL, OSL, CONC, MAX_MODEL_LEN, ...), in a sandbox where stand-ins
// replace the engines, clients and GPU tools and record how they were called; the
// server command, its environment, its files and downloads, and the client's load
// then go into the points, so servebench launches exactly what InferenceX does.
//
//   CaptureInferenceXLaunches(plan, runners, settings)   capture + apply, in place
//   FormatCaptureReport(report)                          what was captured, for people
//
// Pieces: job_environment.h (the job and its script), sandbox.h + standin.sh,
// script_run.h, launch_capture.h (the rules), apply_capture.h, recipe_writer.h
// (captured points as a native recipe). docs/recipes.md, "Captured InferenceX
// launches", is the user's description.
#pragma once

#include <string>
#include <vector>

#include "capture/capture_settings.h"
#include "capture/launch_capture.h"
#include "common/status.h"
#include "recipe/recipe.h"

namespace servebench::capture {

// One config key's outcome.
struct KeyReport {
  std::string key;
  std::vector<std::string> scripts;  // the scripts its points ran (one per spec kind)
  int points = 0;                    // single-node points of the key
  int captured = 0;                  // of them, captured and applied
  int captures = 0;                  // script runs (distinct job environments)
  // Why points were not captured, each reason once, with its point count.
  std::vector<std::pair<std::string, int>> failures;
  // Serve sessions the capture split because the command changes with CONC:
  // "tp8 1k1k: --max-num-seqs changes with CONC: 7 sessions instead of 1".
  std::vector<std::string> splits;
  std::vector<std::string> notes;  // what ran and is not carried, each note once
  bool multinode = false;          // not captured at all: a multinode key
};

struct CaptureReport {
  std::vector<KeyReport> keys;  // in plan order
  int captures = 0;             // script runs
  int failed_points = 0;
  bool all_captured() const { return failed_points == 0; }
};

// Captures every single-node InferenceX point of `plan` and applies the capture to
// it (ApplyCapture), reassigning ids; points of other formats are left alone, and
// so are multinode points and points whose capture failed (the report says which).
// Identical job environments are captured once. `captures`, when given, receives
// every script run's result (for transcripts). Fails only when the sandbox cannot
// be built (no benchmarks/ in the root, disk errors).
StatusOr<CaptureReport> CaptureInferenceXLaunches(recipe::Plan* plan,
                                                  const recipe::RunnerConfig& runners,
                                                  const CaptureSettings& settings,
                                                  std::vector<LaunchCapture>* captures = nullptr);

// Per key: captured n/m points in k script runs, the splits, the failures with
// their reasons, the notes; then a totals line. For terminals and logs.
std::string FormatCaptureReport(const CaptureReport& report, bool with_notes);

}  // namespace servebench::capture
