#include "client/send_pacer.h"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <chrono>

#include "common/clock.h"

namespace servebench::client {

namespace {
// A spin-wait hint: lets the sibling hyper-thread run and saves power.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}
}  // namespace

bool SendPacer::TryRealtime() {
  // With one CPU a spinning real-time thread would hold off the event loop itself.
  if (std::thread::hardware_concurrency() < 2) return false;
  sched_param param{};
  param.sched_priority = 1;  // the lowest real-time priority: above every normal thread
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
}

SendPacer::SendPacer(std::vector<int64_t> due_ns, Prepare prepare, Fire fire, Done done)
    : due_ns_(std::move(due_ns)),
      prepare_(std::move(prepare)),
      fire_(std::move(fire)),
      done_(std::move(done)) {}

SendPacer::~SendPacer() { Stop(); }

void SendPacer::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void SendPacer::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool SendPacer::SleepUntil(int64_t t_ns) {
  std::unique_lock<std::mutex> lock(mu_);
  // steady_clock is CLOCK_MONOTONIC on Linux, the clock of MonotonicNowNs();
  // libstdc++ waits with pthread_cond_clockwait on it.
  const auto at = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(t_ns));
  wake_.wait_until(lock, at, [&] { return stopping_; });
  return !stopping_;
}

void SendPacer::Loop() {
  // The default 50 µs slack would let the kernel fire our wake-ups that much late.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  realtime_ = TryRealtime();
  for (; next_ < due_ns_.size(); ++next_) {
    const int64_t due = due_ns_[next_];
    if (MonotonicNowNs() < due - kLeadNs && !SleepUntil(due - kLeadNs)) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    prepare_(next_);
    while (MonotonicNowNs() < due) CpuRelax();
    fire_(next_, due);
  }
  if (done_) done_();
}

}  // namespace servebench::client
