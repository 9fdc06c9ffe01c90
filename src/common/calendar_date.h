// Calendar dates as servebench takes them from people (--build-date, --date, --since):
// YYYY-MM-DD that names a real day of the Gregorian calendar (2026-02-30 does not),
// optionally followed by a UTC time THH:MM:SSZ where a time is allowed. Pure
// functions; thread-safe.
#pragma once

#include <string_view>

#include "common/status.h"

namespace servebench {

// True if `text` is exactly YYYY-MM-DD naming a real day (years 1970-9999).
bool IsCalendarDate(std::string_view text);

// OK, or InvalidArgument "<flag> = '<text>': not a real calendar date; write
// YYYY-MM-DD, e.g. 2026-11-29".
Status CheckCalendarDate(std::string_view flag, std::string_view text);

// As CheckCalendarDate, but YYYY-MM-DDTHH:MM:SSZ (a real UTC time) is accepted too.
Status CheckDateOrUtcTime(std::string_view flag, std::string_view text);

}  // namespace servebench
