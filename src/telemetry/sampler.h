// Sampler: one running GPU telemetry source. Every source (NVML, amdsmi, their
// CLIs, a DCGM-exporter scrape) is one of two kinds: a PollingSampler reads all its
// GPUs once per period on its own thread; a stream sampler (smi_samplers.h) reads
// the lines a vendor CLI prints in its own loop. Both stamp samples on the client's
// CLOCK_MONOTONIC and collect them here until Stop().
// Lifecycle: made by OpenSampler (telemetry.h) with its GPUs already listed;
// Start() once; WaitForSamplesAfter() any number of times; Stop() once.
// Thread-safety: the owner calls Start/Wait/Stop from one thread; samples arrive on
// the sampler's own thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "telemetry/power_sample.h"

namespace servebench::telemetry {

class Sampler {
 public:
  Sampler(SourceInfo info, std::vector<GpuInfo> gpus);
  virtual ~Sampler() = default;
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  const SourceInfo& info() const { return set_.info; }
  const std::vector<GpuInfo>& gpus() const { return set_.gpus; }

  // Begins sampling. Fails when the source cannot start (the stream's command
  // exits at once, the library stops answering).
  virtual Status Start() = 0;
  // Blocks until every GPU has a sample stamped at or after `t_ns` (monotonic), or
  // until `deadline_ns`; true when it did.
  bool WaitForSamplesAfter(int64_t t_ns, int64_t deadline_ns);
  // Ends sampling and returns everything collected. Call once.
  virtual SampleSet Stop() = 0;

 protected:
  void Push(PowerSample sample);
  void CountBadTimestamp();
  void AddNote(const std::string& note);
  // Moves the collected set out (for Stop()).
  SampleSet TakeSet();
  void SetCounterSnapshot(bool start, CounterSnapshot snapshot);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  SampleSet set_;                          // GUARDED_BY(mu_) after construction
  std::map<std::string, int64_t> latest_;  // GUARDED_BY(mu_): newest sample per GPU
};

// A source read in-process (or over HTTP) once per period on a thread of its own.
// Ticks are scheduled on absolute times (start + k × period), so a slow read does
// not stretch the period; a tick that is already past is skipped.
class PollingSampler : public Sampler {
 public:
  using Sampler::Sampler;
  ~PollingSampler() override;
  Status Start() override;
  SampleSet Stop() override;

 protected:
  // One reading of every GPU, stamped by the implementation. An error is noted
  // once and the tick produces no samples (a gap, judged by the energy rule).
  virtual StatusOr<std::vector<PowerSample>> ReadOnce() = 0;
  // Called after the thread ended, before the set is taken (library shutdown).
  virtual void Finish() {}

 private:
  void Loop();
  std::thread thread_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;  // GUARDED_BY(stop_mu_)
};

}  // namespace servebench::telemetry
