#include "web/dashboard_data.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "record/record_builder.h"
#include "web/dashboard_page.h"

namespace servebench::web {
namespace {

namespace json = boost::json;

// A record as `servebench run` writes it, reduced to what the dashboard reads. Two
// configurations are told apart by tp.
record::Record Record(int tp, int conc, const std::string& date, double out_tput, double tpot_ms,
                      const std::string& status = "ok") {
  std::string series = "series-tp" + std::to_string(tp) + "-c" + std::to_string(conc);
  record::Record r;
  r.record_id = series + "-" + date;
  r.run_id = "run-" + date;
  r.point_id = series;
  r.series_id = series;
  r.recipe = "r1";
  r.engine = "sim";
  r.model = "llama-3.1-8b";
  r.hardware = "h200";
  r.isl = 1024;
  r.osl = 128;
  r.concurrency = conc;
  r.deployment.tp = tp;
  r.deployment.num_gpus = tp;
  r.status = *record::RecordStatusFromName(status);
  if (status != "ok") {
    r.failure_class = failure_class::kServerDiedDuringRun;
    r.failure_reason = "engine exited 137 </script><script>alert(1)</script>";
  }
  r.build = {"img", "c-" + date, date};
  r.provenance.started_at = date + "T01:00:00Z";
  if (status == "ok") {
    record::SetLoadResult(&r, json::object{{"completed", 100},
                                           {"failed", 0},
                                           {"request_throughput", out_tput / 128},
                                           {"output_throughput", out_tput},
                                           {"total_token_throughput", out_tput * 9},
                                           {"median_ttft_ms", 20.0},
                                           {"p99_ttft_ms", 40.0},
                                           {"median_tpot_ms", tpot_ms},
                                           {"p99_tpot_ms", tpot_ms * 1.2},
                                           {"median_itl_ms", tpot_ms},
                                           {"p99_itl_ms", tpot_ms * 2},
                                           {"median_e2el_ms", 20 + 127 * tpot_ms},
                                           {"p99_e2el_ms", 40 + 127 * tpot_ms}});
  }
  return r;
}

std::vector<record::Record> TwoNights() {
  std::vector<record::Record> rs;
  for (const char* date : {"2026-11-28", "2026-11-29"}) {
    for (int tp : {1, 2}) {
      for (int conc : {1, 8, 64})
        rs.push_back(Record(tp, conc, date, 1000.0 * conc * tp, 5.0 + conc / 8.0));
    }
  }
  rs.push_back(Record(2, 128, "2026-11-29", 0, 0, "failed"));
  return rs;
}

TEST(DashboardDataTest, PowerColumnsAndTokensPerJouleComeFromTheRecordsPower) {
  std::vector<record::Record> rs = {Record(1, 8, "2026-11-29", 8000, 6.0),
                                    Record(1, 64, "2026-11-29", 40000, 9.0)};
  // The first measured valid power; the second's power broke a rule (the headline
  // has none, as HeadlineFromResult reads null keys).
  rs[0].headline->avg_power_w = 412.5;
  rs[0].headline->joules_per_output_token = 0.0516;
  rs[0].headline->output_tokens_per_joule = 19.39;
  auto data = BuildDashboardData(
      rs, {.title = "t", .source = "test", .generated_at = "2026-11-30T00:00:00Z"});
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  const json::array& rows = data->at("records").as_array();
  ASSERT_EQ(rows.size(), 2u);
  const json::object& valid =
      rows[0].at("concurrency").as_int64() == 8 ? rows[0].as_object() : rows[1].as_object();
  const json::object& invalid =
      &valid == &rows[0].as_object() ? rows[1].as_object() : rows[0].as_object();
  EXPECT_DOUBLE_EQ(valid.at("avg_power_w").as_double(), 412.5);
  EXPECT_DOUBLE_EQ(valid.at("joules_per_output_token").as_double(), 0.0516);
  EXPECT_DOUBLE_EQ(valid.at("output_tokens_per_joule").as_double(), 19.39);
  EXPECT_TRUE(invalid.at("joules_per_output_token").is_null());
  const json::array& points =
      data->at("charts").as_array()[0].at("curves").as_array()[0].at("points").as_array();
  ASSERT_EQ(points.size(), 2u);
  EXPECT_DOUBLE_EQ(points[0].at("output_tokens_per_joule").as_double(), 19.39);  // conc 8 first
  EXPECT_TRUE(points[1].at("output_tokens_per_joule").is_null());
}

TEST(DashboardDataTest, RowsChartsAndNightlyFromRecords) {
  auto data = BuildDashboardData(
      TwoNights(), {.title = "t", .source = "test", .generated_at = "2026-11-30T00:00:00Z"});
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  const json::array& rows = data->at("records").as_array();
  ASSERT_EQ(rows.size(), 13u);
  EXPECT_EQ(rows.front().at("build_date").as_string(), "2026-11-29") << "newest first";
  EXPECT_EQ(data->at("counts").at("ok").as_int64(), 12);
  EXPECT_EQ(data->at("counts").at("failed").as_int64(), 1);
  EXPECT_EQ(data->at("build_dates").as_array().size(), 2u);

  // One workload; per configuration its newest night's curve, three points.
  const json::array& charts = data->at("charts").as_array();
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_EQ(charts[0].at("workload").as_string(), "r1 · llama-3.1-8b · h200 · 1024/128");
  const json::array& curves = charts[0].at("curves").as_array();
  ASSERT_EQ(curves.size(), 2u);
  for (const json::value& c : curves) {
    EXPECT_EQ(c.at("build_date").as_string(), "2026-11-29");
    ASSERT_EQ(c.at("points").as_array().size(), 3u);
    // The earlier night is drawn under it, so a slower night shows on the chart.
    const json::array& history = c.at("history").as_array();
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(history[0].at("build_date").as_string(), "2026-11-28");
    EXPECT_EQ(history[0].at("points").as_array().size(), 3u);
  }
  const json::object& p = curves[1].at("points").as_array()[2].as_object();  // tp2, concurrency 64
  EXPECT_EQ(curves[1].at("config").as_string(), "tp2");
  // InferenceX's tput_per_gpu: 1,152,000 total tok/s over 2 GPUs (not output per GPU).
  EXPECT_DOUBLE_EQ(p.at("tput_per_gpu").as_double(), 576000.0);
  EXPECT_DOUBLE_EQ(p.at("median_intvty").as_double(), 1000.0 / 13.0);  // 1000 / median TPOT
  EXPECT_FALSE(charts[0].at("frontier").as_array().empty());

  // Two nights: the newest is judged, every series has its history.
  const json::value& nightly = data->at("nightly");
  ASSERT_TRUE(nightly.is_object());
  EXPECT_EQ(nightly.at("report").at("date").as_string(), "2026-11-29");
  EXPECT_EQ(nightly.at("series").as_array().size(), 7u);
}

TEST(DashboardDataTest, OneNightHasNoVerdictsAndDuplicatesCountOnce) {
  std::vector<record::Record> rs = {Record(1, 1, "2026-11-29", 100, 5),
                                    Record(1, 1, "2026-11-29", 100, 5)};
  auto data = BuildDashboardData(rs, {});
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ(data->at("records").as_array().size(), 1u);
  EXPECT_TRUE(data->at("nightly").is_null());
  EXPECT_FALSE(data->at("generated_at").as_string().empty());
}

TEST(DashboardDataTest, ARecordWithoutIdentityIsRefusedByName) {
  record::Record r = Record(1, 1, "2026-11-29", 100, 5);
  r.series_id.clear();
  auto data = BuildDashboardData({r}, {});
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.status().message().find("series_id"), std::string::npos)
      << data.status().message();
}

TEST(DashboardPageTest, DataCannotCloseTheScriptElement) {
  DashboardOptions options;
  options.title = "<b>nightly</b>";
  auto data = BuildDashboardData(TwoNights(), options);
  ASSERT_TRUE(data.ok());
  std::string html = RenderDashboardHtml(*data);
  EXPECT_EQ(html.find("</script><script>alert(1)"), std::string::npos);
  EXPECT_EQ(html.find("<b>nightly</b>"), std::string::npos) << "the title is escaped";
  EXPECT_NE(html.find("&lt;b&gt;nightly&lt;/b&gt;"), std::string::npos);
  // The embedded JSON parses back to the same data.
  std::string open = "<script type=\"application/json\" id=\"servebench-data\">";
  size_t from = html.find(open) + open.size();
  size_t to = html.find("</script>", from);
  EXPECT_EQ(json::parse(html.substr(from, to - from)), json::value(*data));
  EXPECT_EQ(EmbeddableJson(R"({"a":"</script><!--"})"), R"({"a":"\u003c/script>\u003c!--"})");
}

}  // namespace
}  // namespace servebench::web
