#include "common/time_format.h"

#include <gtest/gtest.h>

#include <regex>

namespace servebench {
namespace {

TEST(TimeFormatTest, Rfc3339IsUtcWithSecondsAndZ) {
  EXPECT_EQ(FormatTime(0, kRfc3339Utc), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(1'796'070'600, kRfc3339Utc), "2026-11-30T20:30:00Z");
  EXPECT_TRUE(std::regex_match(Rfc3339Now(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << Rfc3339Now();
}

TEST(TimeFormatTest, OtherFormatsAndZones) {
  EXPECT_EQ(FormatTime(1'796'070'600, "%Y%m%dT%H%M%SZ"), "20261130T203000Z");
  EXPECT_EQ(FormatTime(1'796'070'600, "%Y-%m-%d"), "2026-11-30");
  // Local time is the same instant, so it differs from UTC by whole minutes only.
  std::string local = FormatTime(1'796'070'600, "%S", TimeZone::kLocal);
  EXPECT_EQ(local, "00");
}

}  // namespace
}  // namespace servebench
