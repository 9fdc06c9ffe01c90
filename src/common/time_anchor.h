// The run's realtime anchor (design.md, "Time"): CLOCK_REALTIME and CLOCK_MONOTONIC
// read together once, so wall-clock times from elsewhere (power telemetry CLIs,
// server logs) map onto the monotonic timeline and back. Plain value; thread-safe.
#pragma once

#include <cstdint>

namespace servebench {

struct TimeAnchor {
  int64_t realtime_ns = 0;
  int64_t monotonic_ns = 0;
  // Reads both clocks now: the realtime read sits between two monotonic reads and is
  // paired with their midpoint, so the anchor's error is half the time they took.
  static TimeAnchor Now();
  int64_t MonotonicFromUnixNs(int64_t unix_ns) const {
    return monotonic_ns + (unix_ns - realtime_ns);
  }
  int64_t UnixNsFromMonotonic(int64_t mono_ns) const {
    return realtime_ns + (mono_ns - monotonic_ns);
  }
};

}  // namespace servebench
