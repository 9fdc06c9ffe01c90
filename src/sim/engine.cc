#include "sim/engine.h"

#include <algorithm>
#include <cmath>

#include "common/clock.h"

namespace servebench::sim {
namespace {
// time_scale 0: wall time spent running steps in one loop iteration before the
// loop gets to flush sockets and read new requests.
constexpr int64_t kBackToBackSliceNs = 2'000'000;

int64_t ToNs(double seconds) { return static_cast<int64_t>(std::llround(seconds * 1e9)); }
}  // namespace

// The engine's sequence: the scheduler's view plus what only the engine needs.
// Times are simulated ns.
struct Engine::Seq : Sequence {
  Sequence& s = *this;
  EngineRequest req;
  int64_t arrival_ns = 0;
  int64_t eligible_ns = 0;  // arrival + the serving stack's overheads
  int64_t first_token_ns = 0;
  int64_t last_token_ns = 0;
  bool admitted = false;  // handed to the scheduler
  bool scheduled_once = false;
  bool aborted = false;
};

Engine::Engine(EventLoop* loop, const Clock* clock, PerfModel perf, const SchedulerSettings& s,
               const EngineSettings& e, std::function<size_t()> pending_bytes)
    : loop_(loop),
      clock_(clock),
      perf_(std::move(perf)),
      scheduler_(s, &perf_),
      settings_(e),
      pending_bytes_(std::move(pending_bytes)),
      wall_origin_ns_(e.clock_origin_ns > 0 ? e.clock_origin_ns : clock->NowNs()) {
  // /metrics shows every gauge the configuration has (the CPU tier's included) from
  // the first scrape, before any request.
  UpdateGauges();
}

Engine::~Engine() {
  if (loop_ != nullptr && wake_timer_ != 0) loop_->Cancel(wake_timer_);
}

StatusOr<std::unique_ptr<Engine>> Engine::Create(EventLoop* loop, const Clock* clock,
                                                 PerfModel perf, const SchedulerSettings& s,
                                                 const EngineSettings& e,
                                                 std::function<size_t()> pending_bytes) {
  if (e.time_scale < 0)
    return Status::InvalidArgument("--time-scale must be >= 0 (0 = as fast as possible)");
  std::unique_ptr<Engine> engine(
      new Engine(loop, clock, std::move(perf), s, e, std::move(pending_bytes)));
  // Scheduler keeps a pointer to perf_; it was built from the member, so it is valid.
  if (e.num_speculative_tokens > 0) {
    SB_ASSIGN_OR_RETURN(
        AcceptanceSampler sampler,
        AcceptanceSampler::Create(e.num_speculative_tokens, e.target_acceptance_length, e.seed));
    engine->sampler_ = sampler;
    engine->metrics_.spec_decode_num_accepted_tokens_per_pos.assign(e.num_speculative_tokens, 0);
  }
  if (engine->scheduler_.pool_bytes() <= 0) {
    return Status::FailedPrecondition(
        "No available memory for the cache blocks: the weights do not leave room for a KV cache on "
        "this "
        "hardware; raise --tensor-parallel-size or --gpu-memory-utilization, or use a lower "
        "precision");
  }
  return engine;
}

int64_t Engine::MappedNowNs() const {
  const int64_t elapsed = clock_->NowNs() - wall_origin_ns_;
  if (loop_ == nullptr) return elapsed;  // manual mode: the clock is simulated time
  if (settings_.time_scale == 0) return virtual_ns_;
  return static_cast<int64_t>(std::llround(static_cast<double>(elapsed) / settings_.time_scale));
}

std::optional<int64_t> Engine::SimulatedNsOfWall(int64_t wall_ns) const {
  if (settings_.time_scale <= 0) return std::nullopt;
  return static_cast<int64_t>(
      std::llround(static_cast<double>(wall_ns - wall_origin_ns_) / settings_.time_scale));
}

int64_t Engine::WallOf(int64_t sim_ns) const {
  return wall_origin_ns_ +
         static_cast<int64_t>(std::llround(static_cast<double>(sim_ns) * settings_.time_scale));
}

int64_t Engine::SimulatedNowNs() const {
  if (delivering_) return step_end_ns_;
  // A step in flight has not happened yet; what is done ends at virtual_ns_, and the
  // mapped wall clock is never behind it except by rounding.
  return std::max(virtual_ns_, MappedNowNs());
}

int64_t Engine::ArrivalNs(uint64_t id) const {
  auto it = seqs_.find(id);
  return it == seqs_.end() ? -1 : it->second->arrival_ns;
}

uint64_t Engine::Submit(EngineRequest request) {
  auto seq = std::make_unique<Seq>();
  uint64_t id = next_id_++;
  seq->s.id = id;
  seq->s.prompt_tokens = std::max(1, request.prompt_tokens);
  const int seq_prompt_tokens = seq->s.prompt_tokens;
  seq->s.kv_preloaded = request.kv_preloaded;
  if (const PrefixCache* cache = scheduler_.prefix_cache()) {
    seq->s.block_keys = cache->BlockKeys(request.prompt_ids);
  }
  request.prompt_ids = {};  // the keys are all the engine needs of them
  seq->req = std::move(request);
  seq->arrival_ns = SimulatedNowNs();
  // The serving stack's own latency before the scheduler sees the request: a delay
  // per request (requests overlap in it), not a resource.
  const EngineProfile& profile = perf_.engine();
  seq->eligible_ns = seq->arrival_ns + ToNs(profile.request_overhead_ms * 1e-3 +
                                            profile.tokenize_us_per_token * 1e-6 *
                                                static_cast<double>(seq_prompt_tokens));
  pending_.push({seq->eligible_ns, id});
  seqs_.emplace(id, std::move(seq));
  metrics_.prompt_tokens_total += static_cast<uint64_t>(seq_prompt_tokens);
  UpdateGauges();
  MaybeStart();
  return id;
}

void Engine::Abort(uint64_t id) {
  auto it = seqs_.find(id);
  if (it == seqs_.end()) return;
  Seq* seq = it->second.get();
  if (step_active_) {
    // The step in flight may hold a pointer to it; drop it when the step ends.
    seq->aborted = true;
    seq->req.sink = nullptr;
    aborted_.push_back(seq);
    return;
  }
  Finish(seq, FinishReason::kAbort, false);
}

void Engine::Finish(Seq* seq, FinishReason reason, bool notify) {
  if (notify && seq->req.sink) seq->req.sink->OnTokens(0, reason);
  // A request still in its overheads is not in the scheduler; its pending entry is
  // skipped when it comes up (its id is gone).
  if (seq->admitted) scheduler_.Remove(&seq->s);
  switch (reason) {
    case FinishReason::kLength:
      ++metrics_.request_success_length;
      break;
    case FinishReason::kStop:
      ++metrics_.request_success_stop;
      break;
    default:
      ++metrics_.request_success_abort;
      break;
  }
  if (reason != FinishReason::kAbort && seq->last_token_ns > 0)
    metrics_.e2e_request_latency.Observe((seq->last_token_ns - seq->arrival_ns) * 1e-9);
  seqs_.erase(seq->s.id);
  UpdateGauges();
}

void Engine::UpdateGauges() {
  metrics_.num_requests_running = scheduler_.running();
  // Requests still in their overheads count as waiting too.
  metrics_.num_requests_waiting = waiting();
  metrics_.kv_cache_usage_perc = scheduler_.kv_usage();
  metrics_.num_preemptions_total = static_cast<uint64_t>(scheduler_.preemptions_total());
  metrics_.prefix_cache_queries_total = static_cast<uint64_t>(scheduler_.prefix_cache_queries());
  metrics_.prefix_cache_hits_total = static_cast<uint64_t>(scheduler_.prefix_cache_hits());
  if (scheduler_.prefix_cache() != nullptr) {
    metrics_.prefix_caching = true;
    metrics_.prompt_tokens_local_compute =
        static_cast<uint64_t>(scheduler_.prefix_cache_queries() - scheduler_.prefix_cache_hits() -
                              scheduler_.external_prefix_cache_hits());
  }
  if (scheduler_.cpu_blocks() > 0) {
    metrics_.cpu_kv_tier = true;
    metrics_.external_prefix_cache_queries_total =
        static_cast<uint64_t>(scheduler_.external_prefix_cache_queries());
    metrics_.external_prefix_cache_hits_total =
        static_cast<uint64_t>(scheduler_.external_prefix_cache_hits());
    metrics_.cpu_kv_cache_usage_perc = scheduler_.cpu_kv_usage();
    const Scheduler::OffloadTotals t = scheduler_.offload_totals();
    metrics_.kv_offload_bytes_gpu_to_cpu = t.bytes_gpu_to_cpu;
    metrics_.kv_offload_bytes_cpu_to_gpu = t.bytes_cpu_to_gpu;
    metrics_.kv_offload_time_gpu_to_cpu = t.seconds_gpu_to_cpu;
    metrics_.kv_offload_time_cpu_to_gpu = t.seconds_cpu_to_gpu;
  }
}

std::optional<int64_t> Engine::NextStartNs() const {
  // A busy engine steps back to back in simulated time.
  if (scheduler_.running() + scheduler_.waiting() > 0) return virtual_ns_;
  // Idle: the next step starts when the first waiting request clears its overheads
  // (entries of aborted requests are dropped when planning; starting early for one
  // only plans an empty step).
  if (!pending_.empty()) return std::max(virtual_ns_, pending_.top().eligible_ns);
  return std::nullopt;
}

std::optional<int64_t> Engine::PlanStep(int64_t start_ns) {
  // Requests whose overheads have passed join the scheduler's queue, in that order.
  while (!pending_.empty() && pending_.top().eligible_ns <= start_ns) {
    uint64_t id = pending_.top().id;
    pending_.pop();
    auto it = seqs_.find(id);
    if (it == seqs_.end()) continue;  // aborted meanwhile
    it->second->admitted = true;
    scheduler_.Add(&it->second->s);
  }
  plan_ = scheduler_.Plan();
  if (plan_.empty()) {
    virtual_ns_ = std::max(virtual_ns_, start_ns);
    return std::nullopt;
  }
  for (const PlannedWork& w : plan_.work) {
    Seq* seq = static_cast<Seq*>(w.seq);
    if (!seq->scheduled_once) {
      seq->scheduled_once = true;
      metrics_.request_queue_time.Observe((start_ns - seq->eligible_ns) * 1e-9);
    }
  }
  last_step_ = perf_.Step(plan_.shape);
  double step_s = last_step_.total_s;
  simulated_busy_s_ += step_s;
  ++metrics_.engine_steps_total;
  step_end_ns_ = start_ns + std::max<int64_t>(1, ToNs(step_s));
  if (step_tracer_) step_tracer_(start_ns, step_end_ns_, plan_.shape);
  UpdateGauges();
  return step_end_ns_;
}

std::optional<Engine::PlannedStep> Engine::BeginStep() {
  for (;;) {
    std::optional<int64_t> start = NextStartNs();
    if (!start) return std::nullopt;
    bool idle_before = scheduler_.running() + scheduler_.waiting() == 0;
    std::optional<int64_t> end = PlanStep(*start);
    if (end) {
      step_active_ = true;
      return PlannedStep{*start, *end};
    }
    // Nothing could run: an idle engine whose pending entries were all aborted tries
    // the next one; a busy one cannot make progress (a prompt the KV cache cannot hold).
    if (!idle_before) return std::nullopt;
  }
}

void Engine::CompleteStep() { FinishStep(); }

void Engine::MaybeStart() {
  if (step_active_ || loop_ == nullptr) return;
  if (settings_.time_scale == 0) {
    if (!back_to_back_posted_ && !seqs_.empty()) {
      back_to_back_posted_ = true;
      loop_->Post([this] { RunBackToBack(); });
    }
    return;
  }
  for (;;) {
    std::optional<int64_t> start = NextStartNs();
    if (!start) return;
    // (1 µs of slack: the wall clock maps to simulated time with rounding.)
    if (*start > MappedNowNs() + 1000) {
      // Waiting for a request's overheads: wake when they have passed.
      if (wake_timer_ != 0 && wake_at_ns_ <= *start) return;
      if (wake_timer_ != 0) loop_->Cancel(wake_timer_);
      wake_at_ns_ = *start;
      wake_timer_ = loop_->RunAt(WallOf(*start), [this] {
        wake_timer_ = 0;
        wake_at_ns_ = -1;
        MaybeStart();
      });
      return;
    }
    bool idle_before = scheduler_.running() + scheduler_.waiting() == 0;
    std::optional<int64_t> end = PlanStep(*start);
    if (!end) {
      if (idle_before && !pending_.empty()) continue;  // skipped aborted entries
      return;
    }
    step_active_ = true;
    // Due when its simulated end comes round on the wall clock. Behind schedule this
    // is already past and the step is delivered at once (catching up).
    step_deadline_wall_ = WallOf(*end);
    if (step_observer_) step_observer_(WallOf(*start), step_deadline_wall_, last_step_);
    loop_->RunAt(step_deadline_wall_, [this] { FinishStep(); });
    return;
  }
}

void Engine::RunBackToBack() {
  back_to_back_posted_ = false;
  int64_t slice_start = clock_->NowNs();
  while (clock_->NowNs() - slice_start < kBackToBackSliceNs) {
    if (pending_bytes_ && pending_bytes_() > settings_.max_pending_bytes) {
      // Let the sockets drain; try again shortly.
      back_to_back_posted_ = true;
      loop_->RunAt(clock_->NowNs() + 1'000'000, [this] { RunBackToBack(); });
      return;
    }
    std::optional<PlannedStep> step = BeginStep();
    if (!step) return;
    FinishStep();  // clears step_active_; MaybeStart posts nothing while we loop
  }
  if (!seqs_.empty() && !back_to_back_posted_) {
    back_to_back_posted_ = true;
    loop_->Post([this] { RunBackToBack(); });
  }
}

void Engine::FinishStep() {
  if (real_time()) {
    // How late this delivery is against the schedule, in simulated seconds.
    double lag_s =
        static_cast<double>(std::max<int64_t>(0, clock_->NowNs() - step_deadline_wall_)) * 1e-9 /
        settings_.time_scale;
    metrics_.schedule_lag_seconds = lag_s;
    metrics_.step_lag.Observe(lag_s);
  }
  virtual_ns_ = step_end_ns_;
  const int64_t now = step_end_ns_;
  delivering_ = true;
  StepPlan plan = std::move(plan_);
  plan_ = StepPlan();
  std::vector<std::pair<Seq*, FinishReason>> finished;
  for (const PlannedWork& w : plan.work) {
    Seq* seq = static_cast<Seq*>(w.seq);
    if (seq->aborted) continue;
    Sequence& s = seq->s;
    int produced = 0;
    if (w.prefill_tokens > 0) {
      s.prefilled += w.prefill_tokens;
      scheduler_.Commit(&s, w.prefill_tokens);
      if (s.in_prefill()) continue;  // more chunks to go
      produced = 1;                  // the step that completes prefill samples a token
    } else {
      int accepted = 0;
      if (sampler_) {
        accepted = sampler_->Draw();
        ++metrics_.spec_decode_num_drafts;
        metrics_.spec_decode_num_draft_tokens += static_cast<uint64_t>(sampler_->k());
        metrics_.spec_decode_num_accepted_tokens += static_cast<uint64_t>(accepted);
        for (int i = 0; i < accepted; ++i) ++metrics_.spec_decode_num_accepted_tokens_per_pos[i];
      }
      produced = 1 + accepted;
    }
    // Cap at max_tokens and at the EOS position.
    const EngineRequest& r = seq->req;
    int limit = r.max_tokens;
    FinishReason reason = FinishReason::kNone;
    int eos = r.ignore_eos || r.eos_at <= 0 ? 0 : std::max(r.eos_at, r.min_tokens);
    if (eos > 0 && eos < limit) limit = eos;
    produced = std::min(produced, limit - s.generated);
    s.generated += produced;
    if (w.prefill_tokens == 0) scheduler_.Commit(&s, produced);
    if (s.generated >= limit)
      reason = (eos > 0 && limit == eos) ? FinishReason::kStop : FinishReason::kLength;
    metrics_.generation_tokens_total += static_cast<uint64_t>(produced);
    if (produced > 0) {
      if (seq->first_token_ns == 0) {
        seq->first_token_ns = now;
        metrics_.time_to_first_token.Observe((now - seq->arrival_ns) * 1e-9);
      } else {
        double gap = (now - seq->last_token_ns) * 1e-9 / produced;
        for (int i = 0; i < produced; ++i) metrics_.inter_token_latency.Observe(gap);
      }
      seq->last_token_ns = now;
    }
    bool keep_going = seq->req.sink ? seq->req.sink->OnTokens(produced, reason) : false;
    if (reason != FinishReason::kNone) {
      finished.emplace_back(seq, reason);
    } else if (!keep_going) {
      finished.emplace_back(seq, FinishReason::kStop);
    }
  }
  step_active_ = false;
  for (auto& [seq, reason] : finished) {
    if (seq->aborted) continue;  // the sink aborted it during its last call
    seq->req.sink = nullptr;     // the sink has had its last call
    Finish(seq, reason, false);
  }
  // Sequences aborted while the step ran.
  std::vector<Seq*> aborted;
  aborted.swap(aborted_);
  for (Seq* seq : aborted) Finish(seq, FinishReason::kAbort, false);
  delivering_ = false;
  UpdateGauges();
  if (settings_.time_scale > 0 && loop_ != nullptr) MaybeStart();
}

}  // namespace servebench::sim
