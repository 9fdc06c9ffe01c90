// Engine: the simulated inference engine. It owns the sequences, runs the
// Scheduler step by step, asks the PerfModel how long each step takes, and
// delivers each sequence's new tokens to its TokenSink when the step ends. With
// speculative decoding a decode step yields 1 + accepted drafts tokens, delivered
// together (one SSE event downstream, as real engines do).
//
// Simulated time. The engine keeps its own clock, in simulated nanoseconds: a step
// that starts at simulated time s ends at s + the PerfModel's step time, and the
// next step of a busy engine starts exactly there. A request arrives at the
// simulated time the wall clock maps to (time_scale wall seconds per simulated
// second) and may be scheduled once the serving stack's request and tokenization
// overheads (EngineProfile) have passed. Every latency the engine reports — the
// stamps on its tokens (SimulatedNowNs while a step is delivered), /metrics — is
// simulated time, exact whatever the host does.
//
// The schedule. With time_scale > 0 a step's tokens are due at the wall time its
// simulated end maps to, and are delivered then. When the host is too slow (a busy
// CPU) a step is delivered late; the engine does not shift its simulated clock (the
// next step still starts at the previous step's simulated end, and runs at once to
// catch up) but records how late, in simulated seconds, in /metrics
// (vllm:sim_schedule_lag_seconds, vllm:sim_step_lag_seconds): a client that
// reacts to late tokens sends late, so a lagging server distorts the load it is
// offered, and a run must say so (validity rule server_lagged, docs/metrics.md).
// time_scale 0 runs steps back to back as fast as the loop allows, several per loop
// iteration, pausing while the server has too many unsent bytes; simulated time
// then passes only in steps, and nothing can be late.
// Manual mode (no loop): the caller drives steps with BeginStep()/CompleteStep()
// and moves the injected clock itself (one clock nanosecond = one simulated
// nanosecond); predict.h uses it to run a whole sweep in simulated time with exactly
// the serving engine's logic.
// Not thread-safe: loop thread only. Sinks are called on the loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
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
  // The prompt's KV arrived from a prefill worker (a decode worker, pd_worker.h): it
  // is held from admission on and never computed; the first step is a decode step.
  bool kv_preloaded = false;
  // The prompt's token ids, for the prefix cache (empty: the prompt is never a hit).
  std::vector<uint32_t> prompt_ids;
  TokenSink* sink = nullptr;
};

struct EngineSettings {
  double time_scale = 1.0;  // wall seconds per simulated second; 0 = no waiting
  int num_speculative_tokens = 0;
  double target_acceptance_length = 0;  // with num_speculative_tokens > 0
  uint64_t seed = 0;
  // time_scale 0: pause stepping while the server holds more unsent bytes than this.
  size_t max_pending_bytes = 64u << 20;
  // The wall clock (monotonic ns) at simulated time 0; 0 = the engine's creation. The
  // processes of one serve session share it (SimSettings::clock_origin_ns), so the
  // simulated times they stamp are one clock.
  int64_t clock_origin_ns = 0;
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

  // Queues a request arriving now; returns its id. The sink must stay valid until it
  // receives a finishing call, returns false, or Abort(id) is called.
  uint64_t Submit(EngineRequest request);
  // The client is gone: the sequence is dropped and its sink never called again.
  void Abort(uint64_t id);

  // Manual mode: plans the next step and returns when it starts and ends (simulated
  // ns; it starts later than the last step's end when the engine waits for a request
  // to clear its overheads), or nullopt when there is nothing to run. The caller
  // moves the clock to `end_ns` and then calls CompleteStep(), which delivers the
  // tokens.
  struct PlannedStep {
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };
  std::optional<PlannedStep> BeginStep();
  void CompleteStep();

  // Called when a step is scheduled on the wall clock (time_scale > 0): its start
  // and end (monotonic ns) and the perf model's breakdown. The power model listens.
  using StepObserver = std::function<void(int64_t start_ns, int64_t end_ns, const StepBreakdown&)>;
  void SetStepObserver(StepObserver observer) { step_observer_ = std::move(observer); }
  // Called when every step is planned, in any mode: its simulated start and end (ns)
  // and what it computes. The profiler listens (step_profiler.h).
  using StepTracer = std::function<void(int64_t start_ns, int64_t end_ns, const StepShape&)>;
  void SetStepTracer(StepTracer tracer) { step_tracer_ = std::move(tracer); }
  // POST /reset_prefix_cache (Scheduler::ResetPrefixCache).
  void ResetPrefixCache() { scheduler_.ResetPrefixCache(); }
  // The simulated time now: while a step's tokens are being delivered, that step's
  // end; otherwise the wall clock mapped to simulated time (time_scale 0: the end
  // of the last step).
  int64_t SimulatedNowNs() const;
  // When request `id` arrived, in simulated ns; -1 for an unknown id.
  int64_t ArrivalNs(uint64_t id) const;
  // A wall-clock instant (monotonic ns) in simulated ns: (wall - origin) / time_scale;
  // nullopt at time_scale 0, where simulated time passes only in steps.
  std::optional<int64_t> SimulatedNsOfWall(int64_t wall_ns) const;
  // The wall-clock instant (monotonic ns) of a simulated time (time_scale > 0).
  int64_t WallNsOfSimulated(int64_t sim_ns) const { return WallOf(sim_ns); }
  double time_scale() const { return settings_.time_scale; }
  // Requests not running: in the serving stack's overheads or queued to be scheduled.
  int waiting() const { return static_cast<int>(seqs_.size()) - scheduler_.running(); }

  EngineMetrics& metrics() { return metrics_; }
  const PerfModel& perf() const { return perf_; }
  const Scheduler& scheduler() const { return scheduler_; }
  // Simulated seconds the engine has spent in steps so far.
  double simulated_busy_s() const { return simulated_busy_s_; }

 private:
  struct Seq;
  // A request waiting for its overheads to pass, ordered by when they do.
  struct Pending {
    int64_t eligible_ns;
    uint64_t id;
    bool operator>(const Pending& o) const {
      return eligible_ns != o.eligible_ns ? eligible_ns > o.eligible_ns : id > o.id;
    }
  };
  Engine(EventLoop* loop, const Clock* clock, PerfModel perf, const SchedulerSettings& s,
         const EngineSettings& e, std::function<size_t()> pending_bytes);
  bool real_time() const { return loop_ != nullptr && settings_.time_scale > 0; }
  // The wall clock mapped to simulated ns (manual mode: the clock itself).
  int64_t MappedNowNs() const;
  // Wall time (the clock's ns) at which simulated time `sim_ns` is due.
  int64_t WallOf(int64_t sim_ns) const;
  // When the next step can start (simulated ns), or nullopt when there is no work.
  std::optional<int64_t> NextStartNs() const;
  void MaybeStart();
  // Plans a step starting at `start_ns`; returns its simulated end, or nullopt when
  // nothing can run.
  std::optional<int64_t> PlanStep(int64_t start_ns);
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
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  uint64_t next_id_ = 1;
  bool step_active_ = false;
  bool back_to_back_posted_ = false;
  StepPlan plan_;
  std::vector<Seq*> aborted_;  // aborted while a step was in flight
  const int64_t wall_origin_ns_;
  int64_t virtual_ns_ = 0;          // end of the last step (simulated ns)
  int64_t step_end_ns_ = 0;         // end of the step in flight (simulated ns)
  int64_t step_deadline_wall_ = 0;  // when it is due (wall ns)
  bool delivering_ = false;         // FinishStep is handing out tokens
  uint64_t wake_timer_ = 0;         // real time: waiting for a request's overheads
  int64_t wake_at_ns_ = -1;         // ... until this simulated time
  double simulated_busy_s_ = 0;
  StepBreakdown last_step_;  // of the step PlanStep planned
  StepObserver step_observer_;
  StepTracer step_tracer_;
};

}  // namespace servebench::sim
