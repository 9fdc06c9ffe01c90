#include "sim/engine.h"

#include <algorithm>
#include <cmath>

#include "common/clock.h"

namespace servebench::sim {
namespace {
// time_scale 0: wall time spent running steps in one loop iteration before the
// loop gets to flush sockets and read new requests.
constexpr int64_t kBackToBackSliceNs = 2'000'000;
}  // namespace

// The engine's sequence: the scheduler's view plus what only the engine needs.
struct Engine::Seq : Sequence {
  Sequence& s = *this;
  EngineRequest req;
  int64_t arrival_ns = 0;
  int64_t first_token_ns = 0;
  int64_t last_token_ns = 0;
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
      pending_bytes_(std::move(pending_bytes)) {}

Engine::~Engine() = default;

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

uint64_t Engine::Submit(const EngineRequest& request) {
  auto seq = std::make_unique<Seq>();
  uint64_t id = next_id_++;
  seq->s.id = id;
  seq->s.prompt_tokens = std::max(1, request.prompt_tokens);
  seq->req = request;
  seq->arrival_ns = clock_->NowNs();
  scheduler_.Add(&seq->s);
  seqs_.emplace(id, std::move(seq));
  metrics_.prompt_tokens_total += static_cast<uint64_t>(std::max(1, request.prompt_tokens));
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
  scheduler_.Remove(&seq->s);
  int64_t now = clock_->NowNs();
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
  if (reason != FinishReason::kAbort)
    metrics_.e2e_request_latency.Observe((now - seq->arrival_ns) * 1e-9);
  seqs_.erase(seq->s.id);
  UpdateGauges();
}

void Engine::UpdateGauges() {
  metrics_.num_requests_running = scheduler_.running();
  metrics_.num_requests_waiting = scheduler_.waiting();
  metrics_.kv_cache_usage_perc = scheduler_.kv_usage();
  metrics_.num_preemptions_total = static_cast<uint64_t>(scheduler_.preemptions_total());
}

std::optional<double> Engine::PlanStep() {
  plan_ = scheduler_.Plan();
  if (plan_.empty()) return std::nullopt;
  int64_t now = clock_->NowNs();
  for (const PlannedWork& w : plan_.work) {
    Seq* seq = static_cast<Seq*>(w.seq);
    if (!seq->scheduled_once) {
      seq->scheduled_once = true;
      metrics_.request_queue_time.Observe((now - seq->arrival_ns) * 1e-9);
    }
  }
  last_step_ = perf_.Step(plan_.shape);
  double step_s = last_step_.total_s;
  simulated_busy_s_ += step_s;
  ++metrics_.engine_steps_total;
  UpdateGauges();
  return step_s;
}

std::optional<double> Engine::BeginStep() {
  std::optional<double> step_s = PlanStep();
  if (step_s) step_active_ = true;
  return step_s;
}

void Engine::CompleteStep() { FinishStep(); }

void Engine::MaybeStart() {
  if (step_active_ || loop_ == nullptr) return;
  if (settings_.time_scale == 0) {
    if (!back_to_back_posted_ && scheduler_.running() + scheduler_.waiting() > 0) {
      back_to_back_posted_ = true;
      loop_->Post([this] { RunBackToBack(); });
    }
    return;
  }
  std::optional<double> step_s = PlanStep();
  if (!step_s) return;
  step_active_ = true;
  int64_t now = clock_->NowNs();
  int64_t start = std::max(now, step_deadline_ns_);
  step_deadline_ns_ =
      start + static_cast<int64_t>(std::llround(*step_s * settings_.time_scale * 1e9));
  if (step_observer_) step_observer_(start, step_deadline_ns_, last_step_);
  loop_->RunAt(step_deadline_ns_, [this] { FinishStep(); });
}

void Engine::RunBackToBack() {
  back_to_back_posted_ = false;
  int64_t start = clock_->NowNs();
  while (clock_->NowNs() - start < kBackToBackSliceNs) {
    if (pending_bytes_ && pending_bytes_() > settings_.max_pending_bytes) {
      // Let the sockets drain; try again shortly.
      back_to_back_posted_ = true;
      loop_->RunAt(clock_->NowNs() + 1'000'000, [this] { RunBackToBack(); });
      return;
    }
    if (!PlanStep()) return;
    step_active_ = true;
    FinishStep();  // clears step_active_; MaybeStart posts nothing while we loop
  }
  if (scheduler_.running() + scheduler_.waiting() > 0 && !back_to_back_posted_) {
    back_to_back_posted_ = true;
    loop_->Post([this] { RunBackToBack(); });
  }
}

void Engine::FinishStep() {
  int64_t now = clock_->NowNs();
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
  UpdateGauges();
  if (settings_.time_scale > 0 || loop_ == nullptr) MaybeStart();
}

}  // namespace servebench::sim
