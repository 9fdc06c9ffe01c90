// One set of records, four views: the run report, `results show`, `regress` and the
// dashboard show the same number under the same name for every derived metric
// (tput_per_gpu is total tokens per GPU everywhere, as InferenceX defines it). Runs
// the real binary: two nights of `servebench nightly` on the simulated engine.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/atomic_file.h"
#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "metrics/headline.h"
#include "record/exact_json.h"
#include "record/record_files.h"

namespace servebench {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using testing::RunServebench;

// The derived metrics (metrics/headline.h) that every view shows.
const char* kMetrics[] = {"tput_per_gpu", "output_tput_per_gpu", "median_intvty"};

json::object ParseObject(const std::string& text) {
  StatusOr<json::value> v = record::ParseJsonExactly(text);
  EXPECT_TRUE(v.ok() && v->is_object()) << text.substr(0, 500);
  return v.ok() && v->is_object() ? v->get_object() : json::object{};
}

std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  std::getline(in, cell, '|');  // before the first bar
  while (std::getline(in, cell, '|')) {
    size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
    cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  return cells;
}

// The report.md cell of `metric` in the row of `concurrency` under the heading of
// session `session_id`; "" when there is none.
std::string ReportCell(const std::string& report, const std::string& session_id,
                       int64_t concurrency, const std::string& metric) {
  size_t at = report.find("## session " + session_id.substr(0, 12));
  if (at == std::string::npos) return "";
  std::stringstream in(report.substr(at));
  std::string line;
  std::getline(in, line);  // the heading
  std::getline(in, line);  // blank
  std::getline(in, line);  // the column names
  std::vector<std::string> header = Cells(line);
  auto column = std::find(header.begin(), header.end(), metric);
  if (column == header.end()) return "";
  std::getline(in, line);  // the rule
  while (std::getline(in, line) && line.starts_with("|")) {
    std::vector<std::string> row = Cells(line);
    if (!row.empty() && row[0] == std::to_string(concurrency)) return row[column - header.begin()];
  }
  return "";
}

class SameNumberTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = servebench::testing::FreshTestDir("same_number");
    std::ofstream(dir_ + "/nightly.yaml")
        << "servebench: 1\nrecipes:\n  same-number-sim:\n    engine: sim\n"
           "    model: llama-3.1-8b\n    hardware: h200\n    precision: bf16\n"
           "    nightly: true\n    sim:\n      time_scale: 0.1\n"
           "    load:\n      dataset: random\n      num_prompts: 16\n"
           "    scenarios:\n      - isl: 64\n        osl: 32\n        search_space:\n"
           "          - tp: 1\n            concurrency: [2, 8]\n"
           "          - tp: 2\n            concurrency: [4]\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(SameNumberTest, ReportResultsRegressAndDashboardShowOneNumberUnderOneName) {
  std::string db = dir_ + "/sb.db";
  for (int night : {1, 2}) {
    // The lateness rules are not what this test is about: on a shared host the
    // compressed clock (time_scale 0.1) magnifies a hiccup of the client or the sim 10x.
    testing::ShellResult run =
        RunServebench("nightly " + dir_ + "/nightly.yaml --out " + dir_ + "/out --db " + db +
                      " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000"
                      " --build-date 2026-11-0" +
                      std::to_string(night) + " --build-commit c" + std::to_string(night));
    ASSERT_EQ(run.exit_code, 0) << run.output;
  }
  StatusOr<std::vector<record::Record>> all = record::ReadRecordFolder(dir_ + "/out/records");
  ASSERT_TRUE(all.ok()) << all.status().message();
  std::vector<record::Record> tonight;
  for (const record::Record& r : *all) {
    if (r.build.date == "2026-11-02") tonight.push_back(r);
  }
  ASSERT_EQ(tonight.size(), 3u);

  StatusOr<std::string> report = ReadFile(dir_ + "/out/report.md");  // night 2's run
  ASSERT_TRUE(report.ok()) << report.status().message();
  testing::ShellResult regress =
      RunServebench("regress --db " + db + " --format json --date 2026-11-02 2>/dev/null");
  ASSERT_EQ(regress.exit_code, 0) << regress.output;
  json::object verdicts = ParseObject(regress.output);
  testing::ShellResult dash =
      RunServebench("dashboard --db " + db + " --out " + dir_ + "/dashboard.html");
  ASSERT_EQ(dash.exit_code, 0) << dash.output;
  StatusOr<std::string> html = ReadFile(dir_ + "/dashboard.html");
  ASSERT_TRUE(html.ok());
  std::string open = "<script type=\"application/json\" id=\"servebench-data\">";
  size_t from = html->find(open) + open.size();
  json::object page = ParseObject(html->substr(from, html->find("</script>", from) - from));

  for (const record::Record& r : tonight) {
    SCOPED_TRACE(r.record_id + " tp" + std::to_string(r.deployment.tp) + " c" +
                 std::to_string(*r.concurrency));
    ASSERT_TRUE(r.headline.has_value());
    testing::ShellResult show = RunServebench("results show " + r.record_id + " --db " + db);
    ASSERT_EQ(show.exit_code, 0) << show.output;
    json::object shown = ParseObject(show.output);
    const json::object* verdict = nullptr;
    for (const json::value& v : verdicts.at("verdicts").as_array()) {
      if (v.at("series_id").as_string() == r.series_id && v.at("kind").as_string() == "point") {
        verdict = &v.as_object();
      }
    }
    ASSERT_NE(verdict, nullptr);
    const json::object* row = nullptr;
    for (const json::value& v : page.at("records").as_array()) {
      if (v.at("record_id").as_string() == r.record_id) row = &v.as_object();
    }
    ASSERT_NE(row, nullptr);

    for (const char* name : kMetrics) {
      SCOPED_TRACE(name);
      const metrics::HeadlineMetric* metric = metrics::FindHeadlineMetric(name);
      ASSERT_NE(metric, nullptr);
      std::optional<double> value = (*r.headline).*metric->field;
      ASSERT_TRUE(value.has_value());
      // results show: the record's headline object.
      EXPECT_EQ(shown.at("headline").at(name).to_number<double>(), *value);
      // regress: the series' metric of that name, tonight's value.
      const json::object* judged = nullptr;
      for (const json::value& m : verdict->at("metrics").as_array()) {
        if (m.at("metric").as_string() == name) judged = &m.as_object();
      }
      ASSERT_NE(judged, nullptr);
      EXPECT_EQ(judged->at("value").to_number<double>(), *value);
      // dashboard: the record's row.
      EXPECT_EQ(row->at(name).to_number<double>(), *value);
      // run report: the session table's column of that name, as reports print it.
      EXPECT_EQ(ReportCell(*report, r.session_id, *r.concurrency, name),
                metrics::FormatHeadlineValue(*metric, value));
    }
    // InferenceX's meaning: total tokens per GPU, not output tokens.
    ASSERT_TRUE(r.headline->total_token_throughput.has_value());
    EXPECT_DOUBLE_EQ(*r.headline->tput_per_gpu,
                     *r.headline->total_token_throughput / r.deployment.num_gpus);
    EXPECT_GT(*r.headline->tput_per_gpu, *r.headline->output_tput_per_gpu);
  }
}

}  // namespace
}  // namespace servebench
