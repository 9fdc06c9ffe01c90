#include "common/calendar_date.h"

#include <fmt/format.h>

namespace servebench {
namespace {

// The number `text[from, from+n)` if all digits, else -1.
int Digits(std::string_view text, size_t from, size_t n) {
  int v = 0;
  for (size_t i = from; i < from + n; ++i) {
    if (i >= text.size() || text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

bool IsUtcTime(std::string_view t) {  // "THH:MM:SSZ"
  if (t.size() != 10 || t[0] != 'T' || t[3] != ':' || t[6] != ':' || t[9] != 'Z') return false;
  int h = Digits(t, 1, 2), m = Digits(t, 4, 2), s = Digits(t, 7, 2);
  return h >= 0 && h <= 23 && m >= 0 && m <= 59 && s >= 0 && s <= 60;  // 60: leap second
}

}  // namespace

bool IsCalendarDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  int year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  if (year < 1970 || month < 1 || month > 12 || day < 1) return false;
  return day <= DaysInMonth(year, month);
}

Status CheckCalendarDate(std::string_view flag, std::string_view text) {
  if (IsCalendarDate(text)) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "{} '{}': not a real calendar date; write YYYY-MM-DD, e.g. 2026-11-29", flag, text));
}

Status CheckDateOrUtcTime(std::string_view flag, std::string_view text) {
  if (IsCalendarDate(text.substr(0, 10)) && (text.size() == 10 || IsUtcTime(text.substr(10)))) {
    return Status::Ok();
  }
  return Status::InvalidArgument(fmt::format(
      "{} '{}': give a real UTC date 2026-11-29 or time 2026-11-29T20:30:00Z", flag, text));
}

}  // namespace servebench
