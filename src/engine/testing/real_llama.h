// The real llama.cpp engine for the `realengine` tests (tests only). The ctest
// fixture `realengine_setup` runs scripts/llamacpp-setup.sh, which builds
// llama-server into the cache when missing, writes the random-weight models and
// records both paths in <build>/realengine.env; LoadRealLlama() reads that file.
// LlamaServer starts the engine the way `servebench run` does: a ServeSpec with
// engine llamacpp, rendered by the adapter and started by the Supervisor (readiness,
// /props version, classification, no orphans). Not thread-safe; one per test.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/supervisor.h"
#include "recipe/point.h"

namespace servebench::engine::testing {

struct RealLlama {
  std::string server;  // the llama-server binary
  std::string models;  // folder holding tiny.gguf, tiny-draft.gguf and small.gguf
  std::string Model(const std::string& preset) const { return models + "/" + preset + ".gguf"; }
};

// Reads <build>/realengine.env and puts the server's folder first on PATH, so the
// adapter's `llama-server` (and every child process's) is the cached build.
// FailedPrecondition saying what to run when the fixture has not run.
StatusOr<RealLlama> LoadRealLlama();

// What the tests vary about a server; the rest is what a recipe would say.
struct LlamaServerOptions {
  std::string model = "tiny";              // preset
  std::string draft;                       // preset of a draft model; "" = none
  int draft_tokens = 4;                    // --spec-draft-n-max
  double synthetic_acceptance_length = 0;  // > 0: --spec-synth-len
  int slots = 4;                           // -np (the session's max concurrency)
  int max_model_len = 2048;                // per slot
  // One thread each on a two-core machine (reference: ggml's spinning pool).
  std::vector<std::string> extra_args = {"-t", "1", "-td", "1"};
};

// The ServeSpec for `options` (what a native llamacpp recipe expands to).
recipe::ServeSpec LlamaServeSpec(const RealLlama& llama, const LlamaServerOptions& options);

// Renders `spec` with the adapter (port 0 = a free one; -np `slots`) and starts it
// under a Supervisor, without waiting for readiness.
StatusOr<std::unique_ptr<Supervisor>> StartSupervised(const recipe::ServeSpec& spec, int slots,
                                                      const std::string& log_path, int port = 0);

class LlamaServer {
 public:
  // Starts and waits for readiness; the error carries the classified failure.
  static StatusOr<std::unique_ptr<LlamaServer>> Start(const RealLlama& llama,
                                                      const LlamaServerOptions& options,
                                                      const std::string& log_path);
  std::string base_url() const;
  const ReadyInfo& ready() const { return ready_; }
  Supervisor& supervisor() { return *supervisor_; }

 private:
  std::unique_ptr<Supervisor> supervisor_;
  ReadyInfo ready_;
};

// Every llamacpp:* sample of GET /metrics, by name (labels dropped, values summed).
StatusOr<std::map<std::string, double>> ScrapeLlamaMetrics(const std::string& base_url);

}  // namespace servebench::engine::testing
