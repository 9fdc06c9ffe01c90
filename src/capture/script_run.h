// RunScript: one InferenceX benchmark script run in a Sandbox with the stand-ins,
// under the engine supervisor (its own process group; whatever the script left
// running, the stand-in servers above all, is killed when it ends or times out).
// The script is started as InferenceX's launchers start it: `bash <script>` from the
// workspace, the script named relative to it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "capture/call_record.h"
#include "capture/job_environment.h"
#include "capture/sandbox.h"
#include "common/status.h"

namespace servebench::capture {

struct ScriptRun {
  int exit_code = -1;      // bash's exit code; -1 when it did not exit by itself
  bool timed_out = false;  // stopped at the timeout
  std::string output;      // the script's stdout and stderr (set -x traces too)
  // The environment the script started with, as given (sandbox paths): what the
  // stand-ins' records are compared against.
  std::map<std::string, std::string> env;
  std::vector<CallRecord> calls;  // oldest first
};

// Resets `sandbox`, runs `job.script` with `job.vars` (moved into the sandbox) and
// the stand-ins first on PATH, for at most `timeout_s`. Fails only when the script
// cannot be started or its records cannot be read; a script that fails is a result.
StatusOr<ScriptRun> RunScript(Sandbox& sandbox, const JobEnvironment& job, double timeout_s);

}  // namespace servebench::capture
