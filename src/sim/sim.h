// servebench::sim — the simulated OpenAI-compatible serving engine
// (`servebench sim`). A single-threaded epoll server (HttpServer) in front of an
// Engine whose steps take the time a roofline PerfModel predicts for a catalogue
// model on catalogue hardware; vLLM's API, SSE chunk shape and Prometheus names;
// speculative decoding with a target acceptance length; fault injection.
// docs/simulator.md is the user documentation; src/sim/README.md the module map.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "sim/sim_settings.h"

namespace servebench::sim {

class SimServer {
 public:
  // Builds the server described by `settings`: loads the catalogue and model,
  // sizes the KV cache, binds the socket. Fails with a message naming the flag at
  // fault. The exit-at-startup fault is reported as a Status with code kCancelled
  // whose message is the line to log; the caller exits with faults.exit_code.
  static StatusOr<std::unique_ptr<SimServer>> Create(const SimSettings& settings);
  virtual ~SimServer() = default;

  // The bound port (useful with --port 0).
  virtual int port() const = 0;
  // Lines describing the configuration (model, hardware, KV capacity), for the log.
  virtual std::string Describe() const = 0;
  // Serves until Stop(). Returns an error only if the event loop fails.
  virtual Status Run() = 0;
  // Thread-safe and async-signal-safe.
  virtual void Stop() = 0;
};

}  // namespace servebench::sim
