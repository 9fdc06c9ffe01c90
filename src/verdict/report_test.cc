// Golden snippets of the three report formats for a small hand-made Report.
#include "verdict/report.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "common/exit_codes.h"

namespace servebench::verdict {
namespace {

Report Sample() {
  Report r;
  r.date = "2026-11-29";
  SeriesVerdict reg;
  reg.series_id = "aaaaaaaaaaaaaaaa";
  reg.label = "llama h200 1024/1024 c64";
  reg.verdict = Verdict::kRegression;
  reg.build = {"vllm:nightly", "abc123", "2026-11-29"};
  MetricVerdict m;
  m.metric = "tput_per_gpu";
  m.outcome = MetricOutcome::kRegression;
  m.value = 970;
  m.baseline = 1001;
  m.change_rel = m.worse_rel = -31.0 / 1001;
  m.noise_rel = 0.008;
  m.threshold_rel = 0.025;
  m.rule = "persistence: flagged on 2 of the last 3 nights";
  reg.metrics.push_back(m);
  reg.severity = 31.0 / 1001;
  reg.change_points.push_back({"tput_per_gpu",
                               {"vllm:nightly", "abc122", "2026-11-28"},
                               {"vllm:nightly", "abc121", "2026-11-27"},
                               -0.031,
                               -0.031,
                               0.0004});
  SeriesVerdict blocked;
  blocked.series_id = "bbbbbbbbbbbbbbbb";
  blocked.label = "dsr1 mi355x <mtp>";
  blocked.verdict = Verdict::kBlocked;
  blocked.note = "needs vLLM#1 & a fix";  // '&' is escaped in XML only
  SeriesVerdict ok;
  ok.series_id = "cccccccccccccccc";
  ok.label = "quiet";
  ok.verdict = Verdict::kUnchanged;
  r.verdicts = {reg, blocked, ok};
  return r;
}

TEST(ReportTest, MarkdownListsWorstFirstWithNumbersBaselineAndNoise) {
  std::string md = RenderMarkdown(Sample());
  EXPECT_EQ(
      md,
      "## servebench regress: night of 2026-11-29\n\n"
      "**1 regression**, 0 missing, 0 invalid, 1 blocked, 0 improvements, 0 unblocked, 0 new, "
      "1 unchanged (3 series). Exit status 4.\n\n"
      "Build judged: `vllm:nightly` abc123.\n\n"
      "| Status | Series | Metric | Tonight | Baseline | Change | Noise | Threshold | Rule |\n"
      "|---|---|---|---|---|---|---|---|---|\n"
      "| regression | llama h200 1024/1024 c64 | tput_per_gpu | 970 | 1001 | -3.10 % | 0.80 % | "
      "2.50 % | persistence: flagged on 2 of the last 3 nights |\n"
      "| blocked | dsr1 mi355x <mtp> | | | | | | | needs vLLM#1 & a fix |\n"
      "\n1 series unchanged within noise (not listed).\n"
      "\n### Change points (first bad build)\n\n"
      "| Series | Metric | Last good | First bad | Change | p |\n|---|---|---|---|---|---|\n"
      "| llama h200 1024/1024 c64 | tput_per_gpu | 2026-11-27 vllm:nightly abc121 | "
      "2026-11-28 vllm:nightly abc122 | -3.10 % | 0.0004 |\n");
}

TEST(ReportTest, MarkdownEscapesPipesInCells) {
  Report r = Sample();
  r.verdicts[1].note = "a|b\nc";
  EXPECT_NE(RenderMarkdown(r).find("| a\\|b c |"), std::string::npos) << RenderMarkdown(r);
}

TEST(ReportTest, MarkdownSaysNothingToCompareWhenEmpty) {
  Report r;
  EXPECT_NE(RenderMarkdown(r).find("Nothing to compare"), std::string::npos);
}

TEST(ReportTest, JunitMakesEachSeriesATestCase) {
  std::string xml = RenderJunit(Sample());
  EXPECT_NE(
      xml.find("<testsuites name=\"servebench regress\" tests=\"3\" failures=\"1\" errors=\"0\" "
               "skipped=\"1\">"),
      std::string::npos)
      << xml;
  EXPECT_NE(
      xml.find("    <testcase classname=\"servebench.regress.point\" name=\"llama h200 1024/1024 "
               "c64 [aaaaaaaaaaaa]\">\n      <failure type=\"regression\" message=\"tput_per_gpu "
               "-3.10 % vs baseline 1001: persistence: flagged on 2 of the last 3 nights\">"),
      std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"dsr1 mi355x &lt;mtp&gt; [bbbbbbbbbbbb]\">\n      <skipped "
                     "message=\"blocked: needs vLLM#1 &amp; a fix\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<system-out>unchanged: </system-out>"), std::string::npos) << xml;
}

TEST(ReportTest, JsonCarriesStatusNumbersAndExitCode) {
  boost::json::value v = boost::json::parse(RenderJson(Sample()));
  const boost::json::object& o = v.as_object();
  EXPECT_EQ(o.at("exit_code").to_number<int64_t>(), kExitRegression);
  EXPECT_EQ(o.at("counts").at("regression").to_number<int64_t>(), 1);
  const boost::json::object& first = o.at("verdicts").as_array()[0].as_object();
  EXPECT_EQ(first.at("status").as_string(), "regression");
  EXPECT_DOUBLE_EQ(first.at("metrics").as_array()[0].at("baseline").as_double(), 1001);
  EXPECT_EQ(first.at("change_points").as_array()[0].at("first_bad").at("commit").as_string(),
            "abc122");
}

}  // namespace
}  // namespace servebench::verdict
