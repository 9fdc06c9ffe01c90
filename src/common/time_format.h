// Wall-clock time as text: the one formatter behind every timestamp servebench
// writes (record provenance, store rows, eval results, run ids, the dashboard's
// "generated at", result file names). Intervals are never measured with it: they use
// common/clock.h's CLOCK_MONOTONIC. Thread-safe (gmtime_r / localtime_r).
#pragma once

#include <ctime>
#include <string>

namespace servebench {

enum class TimeZone {
  kUtc,    // what servebench stores and compares
  kLocal,  // only where a compatible tool uses local time (vllm bench's file names)
};

// RFC 3339 in UTC with second precision, e.g. "2026-11-29T20:30:00Z".
inline constexpr const char* kRfc3339Utc = "%Y-%m-%dT%H:%M:%SZ";

// `t` through strftime(`format`) in `zone`; "" when the result is over 127 bytes.
std::string FormatTime(std::time_t t, const char* format, TimeZone zone = TimeZone::kUtc);

// The current time through strftime(`format`) in `zone`.
std::string FormatNow(const char* format, TimeZone zone = TimeZone::kUtc);

// The current time as RFC 3339 in UTC (kRfc3339Utc).
inline std::string Rfc3339Now() { return FormatNow(kRfc3339Utc); }

}  // namespace servebench
