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
// The command line cannot be read: an unknown flag, a missing argument, a value of the
// wrong type ("abc" for a number). A value of the right type that is not allowed (a port
// above 65535, a date that does not exist) is bad input (1).
inline constexpr int kExitUsage = 64;
// Stopped by Ctrl-C or SIGTERM; partial results were written and marked interrupted.
inline constexpr int kExitInterrupted = 130;

// The table above for people: `--help` of every command ends with it and the README's
// exit-code table is checked against it (cli/exit_codes_doc_test.cc).
struct ExitCodeMeaning {
  int code;
  const char* meaning;
};
inline constexpr ExitCodeMeaning kExitCodeTable[] = {
    {kExitOk, "ok"},
    {kExitInvalidInput,
     "bad input: a flag value, recipe, dataset or file is not allowed; nothing was started"},
    {kExitRunInvalid, "the run completed but broke a validity rule; results are kept"},
    {kExitRunFailed,
     "the run could not be done (engine died, canary failed, server unreachable) or an "
     "internal error"},
    {kExitRegression, "a confirmed regression (regress, nightly)"},
    {kExitGateFailed, "an accuracy or speculative-decoding gate failed (eval, regress, nightly)"},
    {kExitUsage,
     "the command line cannot be read: unknown flag, missing argument, a value that is not a "
     "number"},
    {kExitInterrupted, "interrupted (Ctrl-C, SIGTERM); what was measured is kept"},
};

// How bad a code is, where one command combines several (a Slurm sweep's tasks,
// `nightly --regress`'s run and verdict): the combined code is the most severe.
// ok < run invalid < gate failed < run failed < regression confirmed < anything else
// (bad input, usage, a code no command uses) < interrupted. A confirmed regression is
// what a nightly pipeline pages on, and a point that failed after passing is one
// itself; an interrupted run is incomplete whatever else happened.
constexpr int ExitSeverity(int code) {
  switch (code) {
    case kExitOk:
      return 0;
    case kExitRunInvalid:
      return 1;
    case kExitGateFailed:
      return 2;
    case kExitRunFailed:
      return 3;
    case kExitRegression:
      return 4;
    case kExitInterrupted:
      return 6;
    default:
      return 5;
  }
}

}  // namespace servebench
