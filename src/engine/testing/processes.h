// Test-only: waiting for processes the supervisor must have ended. Header-only.
#pragma once

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>

#include "common/clock.h"

namespace servebench::engine::testing {

// True once `pid_or_negative_group` (a pid, or -pgid for a whole process group) no
// longer exists, polling every 20 ms for at most `within_s`.
inline bool ProcessGone(pid_t pid_or_negative_group, double within_s = 5) {
  const int64_t deadline = MonotonicNowNs() + static_cast<int64_t>(within_s * 1e9);
  while (MonotonicNowNs() < deadline) {
    if (kill(pid_or_negative_group, 0) != 0 && errno == ESRCH) return true;
    usleep(20000);
  }
  return false;
}

}  // namespace servebench::engine::testing
