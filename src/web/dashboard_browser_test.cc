// The dashboard end to end, in a real headless browser: `servebench run` measures a
// small sweep on the real `servebench sim` (two configurations, three concurrencies),
// its records are copied into a six-night history whose last night is 40 % slower
// on one series, one failed record carries markup in its reason, then
// `servebench dashboard` writes the page and Chromium (--headless --dump-dom) runs
// its script in a 1,400 px window. The test reads the DOM the script built, and what
// its own measuring script (added to a copy of the page) found about table widths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/testing/files.h"
#include "common/testing/shell.h"

namespace servebench::web {
namespace {

using servebench::testing::ReadFileOrEmpty;

namespace fs = std::filesystem;
namespace json = boost::json;
using servebench::testing::RunShell;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

// Chromium from $CHROMIUM, else Debian's; `make test` installs the package.
std::string Chromium() {
  const char* env = std::getenv("CHROMIUM");
  if (env != nullptr && *env != '\0') return env;
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(p)) return p;
  }
  return "";
}

class DashboardBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sb_dashboard_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Six nights from one measured night: nights 1-5 as measured (± 0.4 %), night 6
  // with `slow_series` at 60 % of its throughput.
  void WriteHistory(const std::vector<json::object>& measured, const std::string& slow_series) {
    fs::create_directories(dir_ / "history");
    const double jitter[] = {1.000, 1.004, 0.996, 1.002, 0.998, 1.001};
    for (int night = 0; night < 6; ++night) {
      std::string date = "2026-11-2" + std::to_string(night + 1);
      for (json::object r : measured) {
        std::string id = std::string(r.at("record_id").as_string()) + "-n" + std::to_string(night);
        r["record_id"] = id;
        r["build"].as_object()["date"] = date;
        r["provenance"].as_object()["started_at"] = date + "T02:00:00Z";
        double f = jitter[night];
        if (night == 5 && r.at("series_id").as_string() == slow_series) f = 0.6;
        json::object& s = r["summary"].as_object();
        for (const char* k :
             {"output_throughput", "total_token_throughput", "request_throughput"}) {
          s[k] = s.at(k).to_number<double>() * f;
        }
        // The record's headline was derived from its summary when it was written.
        json::object& h = r["headline"].as_object();
        for (const char* k :
             {"output_throughput", "total_token_throughput", "request_throughput",
              "input_throughput", "tput_per_gpu", "output_tput_per_gpu", "input_tput_per_gpu"}) {
          if (h.at(k).is_number()) h[k] = h.at(k).to_number<double>() * f;
        }
        std::ofstream(dir_ / "history" / (id + ".json")) << json::serialize(r);
      }
    }
    json::object failed = measured.front();
    failed["record_id"] = "failed-record";
    failed["series_id"] = "a-series-that-failed";
    failed["status"] = "failed";
    failed["failure_class"] = "server.died_during_run";
    failed["failure_reason"] = "engine exited 137 <img src=x onerror=alert(1)>";
    failed["summary"] = nullptr;
    failed["headline"] = nullptr;
    failed["build"].as_object()["date"] = "2026-11-26";
    std::ofstream(dir_ / "history" / "failed-record.json") << json::serialize(failed);
  }

  fs::path dir_;
};

TEST_F(DashboardBrowserTest, ChromiumRendersCurvesVerdictsAndRecordsFromRealRecords) {
  std::string chromium = Chromium();
  ASSERT_FALSE(chromium.empty()) << "no Chromium: `make test` installs Debian's chromium package "
                                    "(scripts/install-deps.sh --with-browser), or set CHROMIUM";
  std::ofstream(dir_ / "recipe.yaml")
      << "servebench: 1\nrecipes:\n  dash-sim:\n    engine: sim\n    model: llama-3.1-8b\n"
         "    hardware: h200\n    precision: bf16\n    sim:\n      time_scale: 0.05\n"
         "    load:\n      dataset: random\n      prompts_per_concurrency: 4\n"
         "    scenarios:\n      - isl: 64\n        osl: 16\n        search_space:\n"
         "          - tp: 1\n            concurrency: [1, 4, 16]\n"
         "          - tp: 1\n            spec_decoding:\n              method: eagle3\n"
         "              draft_model: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\n"
         "              num_speculative_tokens: 3\n"
         "              acceptance: {mode: synthetic, length: 2.5}\n"
         "            concurrency: [1, 4, 16]\n";
  auto run = RunShell(std::string(SERVEBENCH_BIN) + " run " + (dir_ / "recipe.yaml").string() +
                      " --out " + (dir_ / "out").string() + " --db " + (dir_ / "sb.db").string() +
                      " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000");
  ASSERT_EQ(run.exit_code, 0) << run.output;

  std::vector<json::object> measured;
  for (const auto& f : fs::directory_iterator(dir_ / "out" / "records")) {
    measured.push_back(json::parse(ReadFileOrEmpty(f.path())).as_object());
  }
  ASSERT_EQ(measured.size(), 6u);
  std::string slow = std::string(measured.front().at("series_id").as_string());
  WriteHistory(measured, slow);

  fs::path page = dir_ / "dashboard.html";
  auto dash =
      RunShell(std::string(SERVEBENCH_BIN) + " dashboard --records " + (dir_ / "history").string() +
               " --out " + page.string() + " --title 'nightly <sim>'");
  ASSERT_EQ(dash.exit_code, 0) << dash.output;
  EXPECT_NE(dash.output.find("37 record(s)"), std::string::npos) << dash.output;

  // The test's own measurement, after the page's script: at a 1,400 px window, which
  // tables are wider than the page (or than their box) and whether the page scrolls
  // sideways, written into the DOM that --dump-dom prints. The page is unchanged.
  fs::path measured_page = dir_ / "measured.html";
  {
    std::string html = ReadFileOrEmpty(page);
    size_t end = html.rfind("</body>");
    ASSERT_NE(end, std::string::npos);
    html.insert(end, R"(<script>
  const vw = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll("table")]
      .filter((t) => t.getBoundingClientRect().right > vw + 0.5 ||
                     t.scrollWidth > t.parentElement.clientWidth + 0.5)
      .map((t) => t.id || "table");
  document.body.setAttribute("data-test-viewport", String(vw));
  document.body.setAttribute("data-test-overflowing", wide.join(",") || "none");
  document.body.setAttribute("data-test-page-scrolls",
      document.documentElement.scrollWidth > vw + 0.5 ? "yes" : "no");
</script>
)");
    std::ofstream(measured_page) << html;
  }
  fs::path dom_file = dir_ / "dom.html";
  auto browser = RunShell(
      "timeout 120 " + chromium +
      " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
      " --hide-scrollbars --window-size=1400,1000 --user-data-dir=" +
      (dir_ / "chromium-profile").string() + " --dump-dom file://" + measured_page.string() +
      " > " + dom_file.string() + " 2> " + (dir_ / "chromium.log").string());
  std::string dom = ReadFileOrEmpty(dom_file);
  ASSERT_EQ(browser.exit_code, 0) << ReadFileOrEmpty(dir_ / "chromium.log");
  ASSERT_NE(dom.find("data-rendered=\"yes\""), std::string::npos) << "the script did not finish:\n"
                                                                  << dom.substr(0, 3000);
  EXPECT_NE(dom.find("<pre id=\"errors\" hidden=\"\"></pre>"), std::string::npos)
      << "script errors shown";

  // At 1,400 px every table fits the page: nothing cut, nothing scrolled sideways.
  std::smatch viewport;
  ASSERT_TRUE(std::regex_search(dom, viewport, std::regex("data-test-viewport=\"([0-9]+)\"")));
  EXPECT_GE(std::stoi(viewport[1]), 1380) << "the window is not 1,400 px wide";
  EXPECT_NE(dom.find("data-test-overflowing=\"none\""), std::string::npos)
      << dom.substr(dom.find("<body"), 400);
  EXPECT_NE(dom.find("data-test-page-scrolls=\"no\""), std::string::npos);

  // Records: every one a table row; the failed one's reason is text, not markup.
  EXPECT_EQ(Count(dom, "<tr data-record="), 37u);
  EXPECT_NE(dom.find("engine exited 137 &lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  EXPECT_EQ(dom.find("<img src=x"), std::string::npos);
  EXPECT_NE(dom.find("<h1 id=\"title\">nightly &lt;sim&gt;</h1>"), std::string::npos);

  // Records are grouped by configuration: one group per session of the sweep.
  EXPECT_EQ(Count(dom, "<tr class=\"group-head\""), 2u);
  // Simulated records say so, with their time scale.
  EXPECT_NE(dom.find("sim ×0.05"), std::string::npos);

  // Curves: one workload, two configurations, three points each on the newest night
  // and five earlier nights drawn faint under them, a frontier.
  EXPECT_EQ(Count(dom, "class=\"chart-svg\""), 1u);
  EXPECT_EQ(Count(dom, "class=\"curve\""), 2u);
  EXPECT_EQ(Count(dom, "class=\"curve history\""), 10u);
  EXPECT_NE(dom.find("Simulated engine: simulated, clock at time scale 0.05 (numbers in simulated "
                     "time)"),
            std::string::npos);
  // The regressed series is drawn distinct: its point, and only it, is ringed.
  EXPECT_EQ(Count(dom, "class=\"pt\""), 5u);
  EXPECT_EQ(Count(dom, "class=\"pt regressed\""), 1u);
  EXPECT_NE(dom.find("class=\"pt regressed\" cx="), std::string::npos);
  std::regex regressed_dot("class=\"pt regressed\"[^>]*data-series=\"" + slow + "\"");
  EXPECT_TRUE(std::regex_search(dom, regressed_dot)) << "the ringed point is the slowed series";
  EXPECT_NE(dom.find("data-config=\"tp1 eagle3 n3\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"frontier\""), std::string::npos);

  // Nightly: the newest night judged; the slowed series is a regression, the others not.
  EXPECT_NE(dom.find("Night 2026-11-26"), std::string::npos) << dom.substr(0, 2000);
  std::smatch m;
  std::regex slow_row("<tr class=\"verdict st-row-([a-z]+)\" data-series=\"" + slow +
                      "\" data-kind=\"point\">");
  ASSERT_TRUE(std::regex_search(dom, m, slow_row)) << dom.substr(dom.find("verdict-table"), 3000);
  EXPECT_EQ(m[1], "regression");
  // Every point series has its row; of them only the slowed one regressed.
  EXPECT_EQ(Count(dom, "data-kind=\"point\""), 7u);
  std::regex point_regression("st-row-regression\" data-series=\"[^\"]+\" data-kind=\"point\"");
  EXPECT_EQ(std::distance(std::sregex_iterator(dom.begin(), dom.end(), point_regression),
                          std::sregex_iterator()),
            1);
}

}  // namespace
}  // namespace servebench::web
