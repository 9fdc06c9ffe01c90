// Clocks. Intervals use CLOCK_MONOTONIC nanoseconds; one CLOCK_REALTIME anchor per
// run aligns servebench's times with server logs and metrics (design.md, "Time").
// Code that measures takes a `const Clock&` so tests can inject a FakeClock and
// never sleep. Thread-safety: MonotonicClock is stateless; FakeClock is not
// thread-safe (tests drive it from one thread).
#pragma once

#include <cstdint>

namespace servebench {

// Nanoseconds since an arbitrary fixed point (CLOCK_MONOTONIC).
int64_t MonotonicNowNs();
// Nanoseconds since the Unix epoch (CLOCK_REALTIME); for anchors and records only.
int64_t RealtimeNowNs();

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowNs() const = 0;
};

// The real monotonic clock.
class MonotonicClock final : public Clock {
 public:
  int64_t NowNs() const override { return MonotonicNowNs(); }
};

// A clock that moves only when told to; for tests.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t start_ns = 0) : now_ns_(start_ns) {}
  int64_t NowNs() const override { return now_ns_; }
  void AdvanceNs(int64_t delta_ns) { now_ns_ += delta_ns; }
  void SetNs(int64_t now_ns) { now_ns_ = now_ns; }

 private:
  int64_t now_ns_;
};

}  // namespace servebench
