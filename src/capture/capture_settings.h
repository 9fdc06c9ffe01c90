// How launch capture runs InferenceX's benchmark scripts (capture.h). One struct,
// set by `servebench import inferencex` and by `--inferencex-root` on run/matrix.
#pragma once

#include <string>

namespace servebench::capture {

struct CaptureSettings {
  // ---- What is captured ----
  // The InferenceX checkout (benchmarks/, configs/, utils/ at its top). Read only:
  // the scripts run on a copy in the scratch folder.
  std::string inferencex_root;
  // The PORT the job gives its script. 8888 is InferenceX's own default
  // (benchmark_lib.sh, most launchers); the captured command listens there.
  int port = 8888;
  // ---- How ----
  // One script run may take this long before it is stopped and reported as not
  // captured (a script waiting on something a stand-in never provides).
  double script_timeout_s = 60;
  // Scripts run at once; 0 = the machine's cores, at most 4.
  int jobs = 0;
  // Scratch folder for the sandboxes; empty = a fresh one under $TMPDIR, removed
  // afterwards. Given folders are left in place (for inspection).
  std::string scratch_dir;
};

}  // namespace servebench::capture
