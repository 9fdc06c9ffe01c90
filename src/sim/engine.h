// Engine: the simulated inference engine. It owns the sequences, runs the
// Scheduler step by step, asks the PerfModel how long each step takes, and after
// that much (scaled) wall time delivers each sequence's new tokens to its
// TokenSink. With speculative decoding a decode step yields 1 + accepted drafts
// tokens, delivered together (one SSE event downstream, as real engines do).
//
// Time: a step planned at wall time t0 delivers at t0 + step_s × time_scale; the
// next step starts at that deadline (not at "now"), so loop latency does not add
// up over a run. time_scale 0 runs steps back to back as fast as the loop allows,
// several per loop iteration, pausing while the server has too many unsent bytes.
// Manual mode (no loop): the caller drives steps with BeginStep()/CompleteStep()
// and moves the injected clock itself; predict.h uses it to run a whole sweep in
// simulated time with exactly the serving engine's logic.
// Not thread-safe: loop thread only. Sinks are called on the loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "sim/engine_metrics.h"
#include "sim/event_loop.h"
#include "sim/perf_model.h"
#include "sim/scheduler.h"
#include "sim/spec_decode.h"

namespace servebench::sim {

enum class FinishReason { kNone, kLength, kStop, kAbort };

class TokenSink {
 public:
  virtual ~TokenSink() = default;
  // `count` new output tokens. `finish` is kNone unless the sequence ends with this
  // delivery. Return false to end the sequence now (a stop string was produced);
  // the engine then calls nothing more on this sink.
  virtual bool OnTokens(int count, FinishReason finish) = 0;
};

struct EngineRequest {
  int prompt_tokens = 0;
  int max_tokens = 16;
  int min_tokens = 0;
  bool ignore_eos = false;
  // Output length at which the model emits EOS (ignored with ignore_eos); 0 = never.
  int eos_at = 0;
  TokenSink* sink = nullptr;
};

struct EngineSettings {
  double time_scale = 1.0;  // wall seconds per simulated second; 0 = no waiting
  int num_speculative_tokens = 0;
  double target_acceptance_length = 0;  // with num_speculative_tokens > 0
  uint64_t seed = 0;
  // time_scale 0: pause stepping while the server holds more unsent bytes than this.
  size_t max_pending_bytes = 64u << 20;
};

class Engine {
 public:
  // `pending_bytes` reports the server's unsent bytes (for time_scale 0 back-pressure).
  // `loop` null selects manual mode. `clock` must outlive the engine.
  static StatusOr<std::unique_ptr<Engine>> Create(EventLoop* loop, const Clock* clock,
                                                  PerfModel perf,
                                                  const SchedulerSettings& scheduler,
                                                  const EngineSettings& settings,
                                                  std::function<size_t()> pending_bytes = nullptr);
  ~Engine();

  // Queues a request; returns its id. The sink must stay valid until it receives a
  // finishing call, returns false, or Abort(id) is called.
  uint64_t Submit(const EngineRequest& request);
  // The client is gone: the sequence is dropped and its sink never called again.
  void Abort(uint64_t id);

  // Manual mode: plans the next step and returns its simulated duration (seconds),
  // or nullopt when there is nothing to run. The caller advances the clock by the
  // duration and then calls CompleteStep(), which delivers the tokens.
  std::optional<double> BeginStep();
  void CompleteStep();

  // Called when a step is scheduled on the wall clock (time_scale > 0): its start
  // and end (monotonic ns) and the perf model's breakdown. The power model listens.
  using StepObserver = std::function<void(int64_t start_ns, int64_t end_ns, const StepBreakdown&)>;
  void SetStepObserver(StepObserver observer) { step_observer_ = std::move(observer); }

  EngineMetrics& metrics() { return metrics_; }
  const PerfModel& perf() const { return perf_; }
  const Scheduler& scheduler() const { return scheduler_; }
  // Simulated seconds the engine has spent in steps so far.
  double simulated_busy_s() const { return simulated_busy_s_; }

 private:
  struct Seq;
  Engine(EventLoop* loop, const Clock* clock, PerfModel perf, const SchedulerSettings& s,
         const EngineSettings& e, std::function<size_t()> pending_bytes);
  void MaybeStart();
  // Plans a step; returns its duration in simulated seconds, or nullopt when idle.
  std::optional<double> PlanStep();
  void FinishStep();
  void RunBackToBack();
  void Finish(Seq* seq, FinishReason reason, bool notify);
  void UpdateGauges();

  EventLoop* loop_;
  const Clock* clock_;
  PerfModel perf_;
  Scheduler scheduler_;
  EngineSettings settings_;
  std::function<size_t()> pending_bytes_;
  std::optional<AcceptanceSampler> sampler_;
  EngineMetrics metrics_;
  std::unordered_map<uint64_t, std::unique_ptr<Seq>> seqs_;
  uint64_t next_id_ = 1;
  bool step_active_ = false;
  bool back_to_back_posted_ = false;
  StepPlan plan_;
  std::vector<Seq*> aborted_;  // aborted while a step was in flight
  int64_t step_deadline_ns_ = 0;
  double simulated_busy_s_ = 0;
  StepBreakdown last_step_;  // of the step PlanStep planned
  StepObserver step_observer_;
};

}  // namespace servebench::sim
