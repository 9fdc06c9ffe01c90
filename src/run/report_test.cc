#include "run/report.h"

#include <gtest/gtest.h>

#include <string>

#include "record/record_builder.h"

namespace servebench::run {
namespace {

// A point of session "s1" at `concurrency` whose record carries a summary with a
// distinctive throughput, in `status`.
PointReport WithSummary(int concurrency, record::RecordStatus status) {
  PointReport p;
  p.point.recipe = "r";
  p.point.session_id = "s1";
  p.point.serve.engine = "vllm";
  p.point.load.concurrency = concurrency;
  p.status = status;
  p.point.serve.tp = 1;
  if (status != record::RecordStatus::kOk) {
    p.failure = {failure_class::kServerDiedDuringRun, "engine died"};
  }
  p.record = record::RecordOfPoint(p.point, "run");
  record::SetLoadResult(&p.record, boost::json::object{{"request_throughput", 12.5},
                                                       {"output_throughput", 4321.5},
                                                       {"median_ttft_ms", 10.0},
                                                       {"median_tpot_ms", 5.0}});
  return p;
}

TEST(ReportTest, AFailedOrInvalidRowShowsNoThroughput) {
  SweepReport report;
  report.sessions = 1;
  report.points = {WithSummary(1, record::RecordStatus::kOk),
                   WithSummary(2, record::RecordStatus::kFailed),
                   WithSummary(4, record::RecordStatus::kInvalid)};
  std::string text = FormatSweepReport(report, ReportStyle::kTerminal);
  // The ok row: 4321.5 out tok/s; the failed and invalid rows: dashes and their class.
  size_t ok_row = text.find("| 1    | ok");
  ASSERT_NE(ok_row, std::string::npos) << text;
  EXPECT_NE(text.find("4321.5", ok_row), std::string::npos);
  size_t failed_row = text.find("| failed");
  ASSERT_NE(failed_row, std::string::npos) << text;
  std::string failed_line = text.substr(failed_row, text.find('\n', failed_row) - failed_row);
  EXPECT_EQ(failed_line.find("4321.5"), std::string::npos) << failed_line;
  EXPECT_NE(failed_line.find("server.died_during_run"), std::string::npos) << failed_line;
  size_t invalid_row = text.find("| invalid");
  ASSERT_NE(invalid_row, std::string::npos) << text;
  std::string invalid_line = text.substr(invalid_row, text.find('\n', invalid_row) - invalid_row);
  EXPECT_EQ(invalid_line.find("4321.5"), std::string::npos) << invalid_line;
}

TEST(ReportTest, ReportMdListsEachRolesMetricsOfTheSessionsOkPoints) {
  SweepReport report;
  report.sessions = 1;
  report.points = {WithSummary(2, record::RecordStatus::kOk),
                   WithSummary(4, record::RecordStatus::kFailed),
                   WithSummary(8, record::RecordStatus::kOk)};
  report.points[0].record.role_metrics = {{"decode", {{"vllm:generation_tokens_total", 256}}},
                                          {"router", {{"sgl_router_pd_requests_total", 8}}}};
  report.points[1].record.role_metrics = {{"decode", {{"vllm:generation_tokens_total", 77}}}};
  report.points[2].record.role_metrics = {{"decode", {{"vllm:generation_tokens_total", 1024}}},
                                          {"router", {{"sgl_router_pd_requests_total", 32}}}};
  const std::string md = FormatSweepReport(report, ReportStyle::kMarkdown);
  const size_t section = md.find("### Role metrics — session s1");
  ASSERT_NE(section, std::string::npos) << md;
  // A column per ok point; the failed point's numbers are not shown.
  EXPECT_NE(md.find("| role   | metric                       | conc 2 | conc 8 |", section),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| decode | vllm:generation_tokens_total | 256    | 1024   |", section),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| router | sgl_router_pd_requests_total | 8      | 32     |", section),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("77", section), std::string::npos) << md;
  // The terminal report leaves them to report.md and `results show --role-metrics`.
  EXPECT_EQ(FormatSweepReport(report, ReportStyle::kTerminal).find("Role metrics"),
            std::string::npos);
}

TEST(ReportTest, NoRoleMetricsSectionForASingleServer) {
  SweepReport report;
  report.sessions = 1;
  report.points = {WithSummary(1, record::RecordStatus::kOk)};
  EXPECT_EQ(FormatSweepReport(report, ReportStyle::kMarkdown).find("Role metrics"),
            std::string::npos);
}

}  // namespace
}  // namespace servebench::run
