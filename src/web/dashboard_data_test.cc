#include "web/dashboard_data.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "web/dashboard_page.h"

namespace servebench::web {
namespace {

namespace json = boost::json;

// A record as `servebench run` writes it, reduced to what the dashboard reads. Two
// configurations are told apart by tp (no point JSON: the label falls back to it).
json::object Record(int tp, int conc, const std::string& date, double out_tput, double tpot_ms,
                    const std::string& status = "ok") {
  std::string series = "series-tp" + std::to_string(tp) + "-c" + std::to_string(conc);
  json::object r{{"record_id", series + "-" + date},
                 {"series_id", series},
                 {"recipe", "r1"},
                 {"engine", "sim"},
                 {"model", "llama-3.1-8b"},
                 {"hardware", "h200"},
                 {"isl", 1024},
                 {"osl", 128},
                 {"concurrency", conc},
                 {"tp", tp},
                 {"num_gpus", tp},
                 {"status", status},
                 {"failure_class", status == "ok" ? "" : "server.died_during_run"},
                 {"failure_reason",
                  status == "ok" ? "" : "engine exited 137 </script><script>alert(1)</script>"},
                 {"build", json::object{{"date", date}, {"image", "img"}, {"commit", "c-" + date}}},
                 {"provenance", json::object{{"started_at", date + "T01:00:00Z"}}}};
  if (status == "ok") {
    r["summary"] = json::object{{"completed", 100},
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
                                {"p99_e2el_ms", 40 + 127 * tpot_ms}};
  } else {
    r["summary"] = nullptr;
  }
  return r;
}

std::vector<json::object> TwoNights() {
  std::vector<json::object> rs;
  for (const char* date : {"2026-11-28", "2026-11-29"}) {
    for (int tp : {1, 2}) {
      for (int conc : {1, 8, 64})
        rs.push_back(Record(tp, conc, date, 1000.0 * conc * tp, 5.0 + conc / 8.0));
    }
  }
  rs.push_back(Record(2, 128, "2026-11-29", 0, 0, "failed"));
  return rs;
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
  }
  const json::object& p = curves[1].at("points").as_array()[2].as_object();  // tp2, concurrency 64
  EXPECT_EQ(curves[1].at("config").as_string(), "tp2");
  EXPECT_DOUBLE_EQ(p.at("tput_per_gpu").as_double(), 64000.0);  // 128,000 tok/s over 2 GPUs
  EXPECT_DOUBLE_EQ(p.at("intvty").as_double(), 1000.0 / 13.0);  // 1000 / median TPOT
  EXPECT_FALSE(charts[0].at("frontier").as_array().empty());

  // Two nights: the newest is judged, every series has its history.
  const json::value& nightly = data->at("nightly");
  ASSERT_TRUE(nightly.is_object());
  EXPECT_EQ(nightly.at("report").at("date").as_string(), "2026-11-29");
  EXPECT_EQ(nightly.at("series").as_array().size(), 7u);
}

TEST(DashboardDataTest, OneNightHasNoVerdictsAndDuplicatesCountOnce) {
  std::vector<json::object> rs = {Record(1, 1, "2026-11-29", 100, 5),
                                  Record(1, 1, "2026-11-29", 100, 5)};
  auto data = BuildDashboardData(rs, {});
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  EXPECT_EQ(data->at("records").as_array().size(), 1u);
  EXPECT_TRUE(data->at("nightly").is_null());
  EXPECT_FALSE(data->at("generated_at").as_string().empty());
}

TEST(DashboardDataTest, ARecordWithoutIdentityIsRefusedByName) {
  json::object r = Record(1, 1, "2026-11-29", 100, 5);
  r.erase("series_id");
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
