// FailureClass: why a point failed, as one name of one vocabulary (engines.md §6):
//
//   <domain>.<name>[.<detail>...]   domain: server, infra, image, model, client, eval, run,
//                                   disagg, router, dynamo; each part: [a-z][a-z0-9_]*
//   unknown                         nothing matched (keep the log; add a signature)
//
// The classes servebench decides itself are the named constants below; the engine
// catalogue's (data/engine/failure_signatures.yaml) are checked against the same
// grammar when it loads, so a record never carries a class outside it. Code compares
// values, never text; the name is for people and for storage.
// A plain value; thread-safe.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "common/status.h"

namespace servebench {

class FailureClass {
 public:
  // No failure: an ok point.
  FailureClass() = default;

  // The class called `text`; InvalidArgument naming the text and the grammar when it
  // is not one. The empty text is the empty class (no failure).
  static StatusOr<FailureClass> Parse(std::string_view text);

  // A built-in class. `name` must follow the grammar (a test checks every constant).
  static FailureClass Builtin(const char* name) { return FailureClass(name); }

  const std::string& name() const { return name_; }
  bool empty() const { return name_.empty(); }
  // "server" for "server.oom.kv_cache"; "" for the empty class and "unknown".
  std::string_view domain() const;

  friend bool operator==(const FailureClass&, const FailureClass&) = default;

 private:
  explicit FailureClass(std::string name) : name_(std::move(name)) {}
  std::string name_;
};

// Its name, for logs and test failures.
std::ostream& operator<<(std::ostream& out, const FailureClass& c);

// The grammar, for messages: "<domain>.<name>[.<detail>] with domain one of ...".
std::string_view FailureClassGrammar();

// The built-in classes: what servebench itself decides, not read from a log.
namespace failure_class {
// Engine situations with no log signature (the catalogue's `situations` map to these).
inline const FailureClass kServerDiedBeforeReady =
    FailureClass::Builtin("server.died_before_ready");
inline const FailureClass kServerReadinessTimeout =
    FailureClass::Builtin("server.readiness_timeout");
inline const FailureClass kServerDiedDuringRun = FailureClass::Builtin("server.died_during_run");
inline const FailureClass kInfraStartFailed = FailureClass::Builtin("infra.start_failed");
// A serve.prepare step (the model's download) failed with no signature in its output.
inline const FailureClass kInfraPrepareFailed = FailureClass::Builtin("infra.prepare_failed");
// The sweep.
inline const FailureClass kRunCanaryFailed = FailureClass::Builtin("run.canary_failed");
inline const FailureClass kRunInterrupted = FailureClass::Builtin("run.interrupted");
// The load run.
inline const FailureClass kClientError = FailureClass::Builtin("client.error");
inline const FailureClass kClientInvalidRun = FailureClass::Builtin("client.invalid_run");
// `servebench search`: not even the lowest value probed met the SLO limits
// (docs/search.md); the answer's record fails, so a series that passed before regresses.
inline const FailureClass kRunSloNotMet = FailureClass::Builtin("run.slo_not_met");
// Evals and their gates.
inline const FailureClass kEvalError = FailureClass::Builtin("eval.error");
inline const FailureClass kEvalBelowThreshold = FailureClass::Builtin("eval.below_threshold");
// Nothing matched.
inline const FailureClass kUnknown = FailureClass::Builtin("unknown");
}  // namespace failure_class

}  // namespace servebench
