#include "telemetry/sampler.h"

#include <chrono>

#include "common/clock.h"

namespace servebench::telemetry {

Sampler::Sampler(SourceInfo info, std::vector<GpuInfo> gpus) {
  set_.info = std::move(info);
  set_.gpus = std::move(gpus);
}

void Sampler::Push(PowerSample sample) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t& latest = latest_[sample.gpu];
  latest = std::max(latest, sample.t_ns);
  set_.samples.push_back(std::move(sample));
  cv_.notify_all();
}

void Sampler::CountBadTimestamp() {
  std::lock_guard<std::mutex> lock(mu_);
  ++set_.bad_timestamps;
}

void Sampler::AddNote(const std::string& note) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& n : set_.notes) {
    if (n == note) return;
  }
  set_.notes.push_back(note);
}

void Sampler::SetCounterSnapshot(bool start, CounterSnapshot snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  (start ? set_.counter_start : set_.counter_end) = std::move(snapshot);
}

SampleSet Sampler::TakeSet() {
  std::lock_guard<std::mutex> lock(mu_);
  SampleSet out = set_;
  set_.samples.clear();
  return out;
}

bool Sampler::WaitForSamplesAfter(int64_t t_ns, int64_t deadline_ns) {
  std::unique_lock<std::mutex> lock(mu_);
  auto done = [&] {
    for (const GpuInfo& g : set_.gpus) {
      auto it = latest_.find(g.key);
      if (it == latest_.end() || it->second < t_ns) return false;
    }
    return true;
  };
  while (!done()) {
    int64_t left = deadline_ns - MonotonicNowNs();
    if (left <= 0) return false;
    cv_.wait_for(lock, std::chrono::nanoseconds(std::min<int64_t>(left, 100'000'000)));
  }
  return true;
}

PollingSampler::~PollingSampler() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status PollingSampler::Start() {
  thread_ = std::thread([this] { Loop(); });
  return Status::Ok();
}

void PollingSampler::Loop() {
  int64_t period_ns = static_cast<int64_t>(info().period_s * info().time_scale * 1e9);
  if (period_ns < 1'000'000) period_ns = 1'000'000;
  int64_t next = MonotonicNowNs();
  bool reported = false;
  for (;;) {
    StatusOr<std::vector<PowerSample>> read = ReadOnce();
    if (read.ok()) {
      for (PowerSample& s : *read) Push(std::move(s));
    } else if (!reported) {
      reported = true;
      AddNote("a read failed (later failures not repeated): " + read.status().message());
    }
    int64_t now = MonotonicNowNs();
    next += period_ns;
    while (next <= now) next += period_ns;  // a late tick is skipped, not squeezed in
    std::unique_lock<std::mutex> lock(stop_mu_);
    if (stop_cv_.wait_for(lock, std::chrono::nanoseconds(next - now), [&] { return stopping_; })) {
      return;
    }
  }
}

SampleSet PollingSampler::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  Finish();
  return TakeSet();
}

}  // namespace servebench::telemetry
