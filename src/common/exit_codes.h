// Process exit codes, one meaning each, shared by every subcommand so scripts can
// tell outcomes apart (as perf_analyzer's constants.h does). A nightly pipeline
// branches on these: a typo (1 or 64) is not a slowdown (4) or a failed gate (5).
#pragma once

namespace servebench {

inline constexpr int kExitOk = 0;
// Bad input: an invalid recipe, dataset, flag value or file (validate, matrix, run, ...).
inline constexpr int kExitInvalidInput = 1;
// The run completed but broke a validity rule (metrics.md §8); results are kept.
inline constexpr int kExitRunInvalid = 2;
// The run could not be done: engine died, canary failed, server unreachable; also the
// last-resort code for an internal error that escaped every handler.
inline constexpr int kExitRunFailed = 3;
// regress / nightly: at least one series has a confirmed regression.
inline constexpr int kExitRegression = 4;
// eval / regress / nightly: an accuracy or speculative-decoding gate failed.
inline constexpr int kExitGateFailed = 5;
// Misuse of the command line (unknown flag, missing argument, malformed value).
inline constexpr int kExitUsage = 64;
// Stopped by Ctrl-C or SIGTERM; partial results were written and marked interrupted.
inline constexpr int kExitInterrupted = 130;

}  // namespace servebench
