#include "common/progress_line.h"

#include <gtest/gtest.h>

namespace servebench {
namespace {

TEST(ProgressLineTest, PlainLinesAreThrottledAndTheFinalLineAlwaysShows) {
  testing::internal::CaptureStderr();
  ProgressLine slow("eval: ", true, /*terminal=*/false, /*plain_period_s=*/3600);
  slow.Update("1/10");  // within the first period: not shown
  slow.Finish("10/10 done");
  ProgressLine fast("run: ", true, /*terminal=*/false, /*plain_period_s=*/0);
  fast.Update("1/2");
  fast.Finish("2/2");
  std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "eval: 10/10 done\nrun: 1/2\nrun: 2/2\n");
}

TEST(ProgressLineTest, TerminalLinesRedrawInPlaceAndEndWithANewline) {
  testing::internal::CaptureStderr();
  ProgressLine line("p ", true, /*terminal=*/true, 0);
  line.Update("long text");
  line.Finish("x");
  std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out, "\rp long text\rp x        \n");
}

TEST(ProgressLineTest, DisabledLinesPrintNothing) {
  testing::internal::CaptureStderr();
  ProgressLine line("p ", false, false, 0);
  line.Update("a");
  line.Finish("b");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ProgressLineTest, DurationsReadAsPeopleWriteThem) {
  EXPECT_EQ(FormatDuration(12.4), "12s");
  EXPECT_EQ(FormatDuration(245), "4m05s");
  EXPECT_EQ(FormatDuration(3720), "1h02m");
  EXPECT_EQ(FormatDuration(-1), "?");
}

}  // namespace
}  // namespace servebench
