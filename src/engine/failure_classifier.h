// The failure classifier: reads an engine log and names what went wrong, as a failure
// class from the signature catalogue (data/engine/failure_signatures.yaml,
// engines.md §6) plus one human line that quotes the log line it matched.
//
// Rule: the FIRST log line matching a primary signature wins (later lines are
// usually consequences); on one line the signature listed first wins; secondary
// signatures count only when no primary one matches; with no match the class is the
// situation's (died before ready, readiness timeout, died during run, start failed)
// and the line quoted is the one that explains it: the first error-looking line among
// the last kExplainWindowLines ("error: unknown flag --x", not the "Run with --help
// for more information." after it), else the last line.
// Thread-safe: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/failure_class.h"
#include "engine/engine_catalog.h"

namespace servebench::engine {

// What the supervisor saw when it asked for a classification.
enum class Situation {
  kDiedBeforeReady,   // the process exited before readiness
  kReadinessTimeout,  // the deadline passed, process alive
  kDiedDuringRun,     // the process exited while serving (the run's "engine died")
  kStartFailed,       // it could not be started at all (fork, log file, config file)
  // The engine kept serving but requests of a point failed (HTTP errors, streams cut
  // short): its log may say why (a request longer than the context, ...).
  kRequestsFailed,
};

// The class of a situation when the catalogue maps none: the built-in
// failure_class::kServer* / kInfraStartFailed (common/failure_class.h). A signature
// found in the log takes precedence over these.
FailureClass DefaultClass(Situation situation);

struct EngineFailure {
  FailureClass failure_class;  // e.g. server.spec.eagle3_unsupported
  // One line for people, without the class (printed beside it, once):
  // "<what happened>; log line 42: \"<line>\" (<meaning>)".
  std::string summary;
  // The log line quoted (trimmed): the one a signature matched, else the line that
  // best explains the failure (an error-looking one, else the last); empty if none.
  std::string matched_line;
  int line_number = 0;             // 1-based line of matched_line in the text read; 0 if none
  bool signature_matched = false;  // a catalogue signature named the class
  std::string meaning;             // the signature's meaning / first action
};

// Lines from the end of the log searched for the explaining line when no signature
// matches: an engine's own error and its usage hints fit well within this.
inline constexpr size_t kExplainWindowLines = 40;

// Classifies `log_text` in `situation`; `what_happened` describes it for the summary
// (e.g. "engine exited with code 1 before it became ready").
EngineFailure ClassifyFailure(std::string_view log_text, Situation situation,
                              std::string_view what_happened, const SignatureCatalog& catalog);

// Same, reading the log file at `path` (its last `max_bytes` when larger).
EngineFailure ClassifyLogFile(const std::string& path, Situation situation,
                              std::string_view what_happened, const SignatureCatalog& catalog,
                              size_t max_bytes = size_t{16} << 20);

}  // namespace servebench::engine
