#include "common/time_format.h"

namespace servebench {

std::string FormatTime(std::time_t t, const char* format, TimeZone zone) {
  std::tm tm{};
  if (zone == TimeZone::kUtc) {
    gmtime_r(&t, &tm);
  } else {
    localtime_r(&t, &tm);
  }
  char buf[128];
  size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

std::string FormatNow(const char* format, TimeZone zone) {
  return FormatTime(std::time(nullptr), format, zone);
}

}  // namespace servebench
