#include "common/exit_codes.h"

#include <gtest/gtest.h>

namespace servebench {
namespace {

TEST(ExitCodesTest, EveryOutcomeHasItsOwnCode) {
  const int codes[] = {kExitOk,         kExitInvalidInput, kExitRunInvalid, kExitRunFailed,
                       kExitRegression, kExitGateFailed,   kExitUsage,      kExitInterrupted};
  for (size_t i = 0; i < std::size(codes); ++i) {
    for (size_t j = i + 1; j < std::size(codes); ++j) EXPECT_NE(codes[i], codes[j]);
  }
}

TEST(ExitCodesTest, SeverityPutsARegressionAboveAFailedRunAndInterruptionAboveAll) {
  const int worst_last[] = {kExitOk,         kExitRunInvalid,   kExitGateFailed, kExitRunFailed,
                            kExitRegression, kExitInvalidInput, kExitInterrupted};
  for (size_t i = 0; i + 1 < std::size(worst_last); ++i) {
    EXPECT_LT(ExitSeverity(worst_last[i]), ExitSeverity(worst_last[i + 1])) << worst_last[i];
  }
  EXPECT_EQ(ExitSeverity(kExitUsage), ExitSeverity(kExitInvalidInput));
  EXPECT_EQ(ExitSeverity(137), ExitSeverity(kExitInvalidInput)) << "an unknown code is bad";
}

}  // namespace
}  // namespace servebench
