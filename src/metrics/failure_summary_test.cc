#include "metrics/failure_summary.h"

#include <gtest/gtest.h>

namespace servebench::metrics {
namespace {

RunSummary WithFailures() {
  RunSummary s;
  s.completed = 21;
  s.failed = 19;
  s.failures = {{"http_status", 2}, {"read", 17}};
  s.failure_samples = {{"read", "connection closed by the server after 0 stream events"},
                       {"http_status", "HTTP 400: {\"error\":\n\"key 'prompt' not found\"}"}};
  return s;
}

TEST(FailureSummaryTest, CountsListTheMostFrequentKindFirst) {
  EXPECT_EQ(FailureCounts(WithFailures()), "17 read, 2 http_status");
}

TEST(FailureSummaryTest, SummaryGivesEachKindItsFirstMessageOnOneLine) {
  EXPECT_EQ(FailureSummary(WithFailures()),
            "19 of 40 requests failed: 17 read (connection closed by the server after 0 stream "
            "events); 2 http_status (HTTP 400: {\"error\": \"key 'prompt' not found\"})");
}

TEST(FailureSummaryTest, LongMessagesAreCut) {
  RunSummary s = WithFailures();
  std::vector<std::string> lines = FailureLines(s, 10);
  EXPECT_EQ(lines.at(0), "17 read (connection…)");
}

TEST(FailureSummaryTest, NothingFailedSaysNothing) {
  RunSummary s;
  s.completed = 5;
  EXPECT_EQ(FailureSummary(s), "");
  EXPECT_EQ(FailureCounts(s), "");
  EXPECT_TRUE(FailureLines(s).empty());
}

}  // namespace
}  // namespace servebench::metrics
