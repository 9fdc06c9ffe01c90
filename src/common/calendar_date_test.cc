#include "common/calendar_date.h"

#include <gtest/gtest.h>

namespace servebench {
namespace {

TEST(CalendarDateTest, RealDaysAreDatesAndImpossibleOnesAreNot) {
  EXPECT_TRUE(IsCalendarDate("2026-11-29"));
  EXPECT_TRUE(IsCalendarDate("2028-02-29"));  // leap year
  EXPECT_TRUE(IsCalendarDate("2000-02-29"));  // divisible by 400
  EXPECT_FALSE(IsCalendarDate("2100-02-29"));
  EXPECT_FALSE(IsCalendarDate("2026-02-29"));
  EXPECT_FALSE(IsCalendarDate("2026-13-45"));
  EXPECT_FALSE(IsCalendarDate("2026-04-31"));
  EXPECT_FALSE(IsCalendarDate("2026-00-10"));
  EXPECT_FALSE(IsCalendarDate("yesterday"));
  EXPECT_FALSE(IsCalendarDate("2026-1-1"));
  EXPECT_FALSE(IsCalendarDate("2026-11-29 "));
  EXPECT_FALSE(IsCalendarDate(""));
}

TEST(CalendarDateTest, MessageNamesTheFlagTheValueAndTheForm) {
  Status st = CheckCalendarDate("--build-date", "2026-13-45");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("--build-date '2026-13-45'"), std::string::npos);
  EXPECT_NE(st.message().find("YYYY-MM-DD"), std::string::npos);
}

TEST(CalendarDateTest, UtcTimesAreAcceptedOnlyWhereAsked) {
  EXPECT_TRUE(CheckDateOrUtcTime("--since", "2026-11-29").ok());
  EXPECT_TRUE(CheckDateOrUtcTime("--since", "2026-11-29T20:30:00Z").ok());
  EXPECT_FALSE(CheckDateOrUtcTime("--since", "2026-11-29T25:30:00Z").ok());
  EXPECT_FALSE(CheckDateOrUtcTime("--since", "2026-11-31T20:30:00Z").ok());
  EXPECT_FALSE(CheckDateOrUtcTime("--since", "2026-11-29T20:30").ok());
  EXPECT_FALSE(CheckCalendarDate("--build-date", "2026-11-29T20:30:00Z").ok());
}

}  // namespace
}  // namespace servebench
