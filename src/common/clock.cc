#include "common/clock.h"

#include <time.h>

namespace servebench {
namespace {
int64_t Read(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

int64_t MonotonicNowNs() { return Read(CLOCK_MONOTONIC); }
int64_t RealtimeNowNs() { return Read(CLOCK_REALTIME); }

}  // namespace servebench
