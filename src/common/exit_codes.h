// Process exit codes, one meaning each, shared by every subcommand so scripts can
// tell outcomes apart (as perf_analyzer's constants.h does).
#pragma once

namespace servebench {

inline constexpr int kExitOk = 0;
// Bad input: an invalid recipe, dataset or flag value (validate, matrix, run),
// or a confirmed regression / failed gate (regress, eval gates).
inline constexpr int kExitInvalidInput = 1;
// The run completed but broke a validity rule (metrics.md §8); results are kept.
inline constexpr int kExitRunInvalid = 2;
// The run could not be done: engine died, canary failed, server unreachable.
inline constexpr int kExitRunFailed = 3;
// Stopped by Ctrl-C or SIGTERM; partial results were written and marked interrupted.
inline constexpr int kExitInterrupted = 130;
// Misuse of the command line (unknown flag, missing argument).
inline constexpr int kExitUsage = 64;

}  // namespace servebench
