// EngineCatalog: the engine data servebench ships as YAML beside the program
// (data/engine/flags.yaml and data/engine/failure_signatures.yaml): per-engine flag
// tables the adapters render from, and the failure-signature catalogue the
// classifier matches logs against. Loaded and validated once; then read-only, so
// any thread may read a loaded catalogue.
//
// Where the files are found (first folder holding both wins):
//   1. $SERVEBENCH_DATA_DIR/engine
//   2. <folder of the running binary>/data/engine          (build tree: copied there)
//   3. <folder of the running binary>/../share/servebench/engine   (cmake --install)
//   4. <source tree>/data/engine                          (compiled-in path, for tests)
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/failure_class.h"
#include "common/status.h"

namespace servebench::engine {

// One engine's flags (data/engine/flags.yaml, engines.<name>).
struct EngineFlagTable {
  std::string engine;                        // "vllm", "sglang", "trtllm", "llamacpp", "sim"
  std::vector<std::string> command;          // argv before the model / flags
  std::vector<std::string> launcher;         // put before `command` when asked (trtllm: mpirun)
  int default_port = 0;                      // the engine's own default; servebench passes --port
  double readiness_timeout_s = 0;            // supervisor default when the recipe sets none
  int readiness_poll_ms = 1000;              // gap between readiness probes
  std::map<std::string, std::string> flags;  // key -> flag rendered for it
  std::vector<std::string> also_owned;       // other spellings of owned flags
  std::map<std::string, std::string> env;    // key -> environment variable
  std::map<std::string, std::string> synthetic_env;  // fixed env under synthetic acceptance

  // The flag for `key`. The loader checked every key the adapter needs is
  // present, so a missing one is a bug (empty string returned).
  const std::string& Flag(std::string_view key) const;
  // The environment variable for `key` (empty when the table has none).
  const std::string& Env(std::string_view key) const;
  // Every flag an extra argument may not use: the values of `flags` plus also_owned.
  std::vector<std::string> OwnedFlags() const;
  // Every environment variable the adapter sets: `env` values plus synthetic_env keys.
  std::vector<std::string> OwnedEnv() const;
};

// One failure signature (data/engine/failure_signatures.yaml, signatures[]).
struct FailureSignature {
  FailureClass failure_class;      // e.g. server.spec.eagle3_unsupported
  std::vector<std::string> match;  // any one substring matches a line
  std::vector<std::string> near;   // if set, one must appear within near_lines
  int near_lines = 30;
  bool secondary = false;  // used only when no primary signature matches
  std::string meaning;     // one human line: meaning and first action
};

struct SignatureCatalog {
  std::vector<FailureSignature> signatures;  // in priority order
  // Situation name -> class: died_before_ready, readiness_timeout, died_during_run,
  // start_failed.
  std::map<std::string, FailureClass> situations;
};

struct EngineCatalog {
  std::map<std::string, EngineFlagTable> engines;
  SignatureCatalog signatures;
  std::string origin;  // folder (or label) the data was loaded from
};

// Parses and validates the two documents. InvalidArgument naming the file, the key,
// the bad value and the rule (e.g. a flag not starting with '-', an engine missing a
// key its adapter renders, a signature with no `match`, a class outside the
// FailureClass grammar).
StatusOr<EngineCatalog> ParseEngineCatalog(std::string_view flags_yaml,
                                           std::string_view signatures_yaml,
                                           const std::string& origin);

// Loads <dir>/flags.yaml and <dir>/failure_signatures.yaml.
StatusOr<EngineCatalog> LoadEngineCatalog(const std::string& dir);

// The folders searched, in order (see top of file).
std::vector<std::string> EngineDataSearchPath();

// The catalogue from the first folder of EngineDataSearchPath() that has both
// files; loaded once and cached (thread-safe). NotFound lists the folders tried.
StatusOr<const EngineCatalog*> DefaultEngineCatalog();

}  // namespace servebench::engine
