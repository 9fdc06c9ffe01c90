#include "telemetry/power_session.h"

#include <fmt/format.h>

#include <thread>

#include "common/clock.h"

namespace servebench::telemetry {
namespace {

bool Cancelled(const std::atomic<bool>* cancel) { return cancel != nullptr && cancel->load(); }

// Sleeps until `t_ns` (monotonic) or cancellation, in short steps.
void SleepUntil(int64_t t_ns, const std::atomic<bool>* cancel) {
  while (!Cancelled(cancel)) {
    int64_t left = t_ns - MonotonicNowNs();
    if (left <= 0) return;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(left, 50'000'000)));
  }
}

}  // namespace

StatusOr<std::unique_ptr<PowerSession>> PowerSession::Open(const TelemetrySettings& settings,
                                                           const TimeAnchor& anchor,
                                                           const HttpGet& http_get) {
  SB_ASSIGN_OR_RETURN(OpenedSampler opened, OpenSampler(settings, anchor, http_get));
  std::unique_ptr<PowerSession> s(new PowerSession());
  s->sampler_ = std::move(opened.sampler);
  s->unavailable_ = opened.unavailable;
  s->notes_ = opened.notes;
  return s;
}

PowerSession::~PowerSession() {
  if (sampler_) sampler_->Stop();
}

double PowerSession::period_wall_s() const {
  return sampler_ ? sampler_->info().period_s * sampler_->info().time_scale : 0;
}

void PowerSession::Begin(const std::atomic<bool>* cancel) {
  if (!sampler_) return;
  if (!(sampler_->info().time_scale > 0)) {
    // The simulated engine at --time-scale 0 runs steps back to back: no time base.
    unavailable_ = sampler_->info().source + " at " + sampler_->info().where +
                   " runs with time scale 0 (no waiting): its watts have no time base";
    sampler_.reset();
    return;
  }
  int64_t started = MonotonicNowNs();
  Status s = sampler_->Start();
  if (!s.ok()) {
    unavailable_ = fmt::format("{} could not start: {}", sampler_->info().source, s.message());
    sampler_.reset();
    return;
  }
  int64_t lead_ns = static_cast<int64_t>(kLeadPeriods * period_wall_s() * 1e9);
  int64_t deadline = started + lead_ns + static_cast<int64_t>(kFirstSampleTimeoutS * 1e9);
  // A first sample of every GPU (CLI stamps may round below `started`: any time
  // counts), then the rest of the lead time.
  int64_t any_time = started - 60'000'000'000;
  while (!sampler_->WaitForSamplesAfter(any_time,
                                        std::min(deadline, MonotonicNowNs() + 100'000'000))) {
    if (Cancelled(cancel)) return;
    if (MonotonicNowNs() >= deadline) {
      notes_.push_back(fmt::format("a GPU had not sampled {:.0f} s after the sampler started",
                                   static_cast<double>(deadline - started) / 1e9));
      break;
    }
  }
  SleepUntil(started + lead_ns, cancel);
}

std::optional<SampleSet> PowerSession::End(int64_t window_end_ns, const std::atomic<bool>* cancel) {
  if (!sampler_) return std::nullopt;
  int64_t period_ns = static_cast<int64_t>(period_wall_s() * 1e9);
  int64_t deadline = window_end_ns + 2 * period_ns + 10'000'000'000;
  while (!sampler_->WaitForSamplesAfter(window_end_ns + period_ns,
                                        std::min(deadline, MonotonicNowNs() + 100'000'000))) {
    if (Cancelled(cancel) || MonotonicNowNs() >= deadline) break;
  }
  SleepUntil(window_end_ns + static_cast<int64_t>(kTailPeriods * static_cast<double>(period_ns)),
             cancel);
  SampleSet set = sampler_->Stop();
  for (const std::string& n : notes_) set.notes.push_back(n);
  sampler_.reset();
  return set;
}

IdlePower MeasureIdlePower(const TelemetrySettings& settings, const HttpGet& http_get,
                           double duration_s, const std::atomic<bool>* cancel) {
  IdlePower out;
  TimeAnchor anchor = TimeAnchor::Now();
  StatusOr<std::unique_ptr<PowerSession>> session = PowerSession::Open(settings, anchor, http_get);
  if (!session.ok()) {
    out.why = session.status().message();
    return out;
  }
  (*session)->Begin(cancel);
  if (!(*session)->active()) {
    out.why = (*session)->unavailable();
    return out;
  }
  double scale = (*session)->period_wall_s() / settings.sample_period_s;
  int64_t start = MonotonicNowNs();
  int64_t end = start + static_cast<int64_t>(duration_s * scale * 1e9);
  SleepUntil(end, cancel);
  std::optional<SampleSet> set = (*session)->End(end, cancel);
  if (!set) {
    out.why = "the sampler stopped";
    return out;
  }
  out.source = set->info.source;
  PowerInputs in;
  in.samples = &*set;
  in.anchor = anchor;
  in.window = {start, end, 0};
  in.work = {1, 1, 1};  // no traffic: the token rule does not apply to idle power
  PowerReport r = ComputePowerReport(in);
  out.window_s = r.window_s;
  // Idle has no load window to compare with and may be shorter than a point's
  // minimum (tests, the demo); only the rules about the samples themselves apply.
  bool usable = r.integration.valid && r.integration.avg_power_w.has_value();
  for (const metrics::ValidityIssue& i : r.validity.issues) {
    if (i.warning || i.code == "power_window_too_short" || i.code == "power_too_few_samples")
      continue;
    usable = false;
    out.why += (out.why.empty() ? "" : "; ") + i.code + ": " + i.detail;
  }
  if (usable) out.per_gpu_w = r.integration.avg_power_w;
  return out;
}

}  // namespace servebench::telemetry
