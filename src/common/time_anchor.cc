#include "common/time_anchor.h"

#include "common/clock.h"

namespace servebench {

TimeAnchor TimeAnchor::Now() {
  int64_t m0 = MonotonicNowNs();
  int64_t rt = RealtimeNowNs();
  int64_t m1 = MonotonicNowNs();
  return TimeAnchor{rt, m0 + (m1 - m0) / 2};
}

}  // namespace servebench
