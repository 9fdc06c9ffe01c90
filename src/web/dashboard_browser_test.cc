// The dashboard end to end, in a real headless browser: `servebench run` measures a
// small sweep on the real `servebench sim` (two configurations, three concurrencies),
// with GPU power read from the sim's own DCGM-shaped /metrics, its records are copied into a
// six-night history whose last night is 40 % slower on one series, one failed record carries markup
// in its reason, then `servebench dashboard` writes the page and Chromium (--headless --dump-dom)
// runs its script in a 1,400 px window. The test reads the DOM the script built, and what its own
// measuring script (added to a copy of the page) found about table widths: the throughput and
// tokens-per-joule curves at the stored values, the verdicts, the records. The same history with
// its power removed shows the throughput curves and says that no point has valid power in place of
// the tokens-per-joule curve.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
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

// The page's embedded data (dashboard_page.h): what its script draws.
json::object EmbeddedData(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"servebench-data\">";
  size_t at = html.find(open);
  if (at == std::string::npos) return {};
  at += open.size();
  return json::parse(html.substr(at, html.find("</script>", at) - at)).as_object();
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

  // The DOM after the page's script ran, from Chromium at a 1,400 px window.
  void DumpDom(const std::string& chromium, const fs::path& page, std::string* out) {
    fs::path dom_file = dir_ / (page.stem().string() + ".dom.html");
    fs::path log = dir_ / (page.stem().string() + ".chromium.log");
    auto browser =
        RunShell("timeout 120 " + chromium +
                 " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
                 " --hide-scrollbars --window-size=1400,1000 --user-data-dir=" +
                 (dir_ / "chromium-profile").string() + " --dump-dom file://" + page.string() +
                 " > " + dom_file.string() + " 2> " + log.string());
    std::string& dom = *out;
    dom = ReadFileOrEmpty(dom_file);
    ASSERT_EQ(browser.exit_code, 0) << ReadFileOrEmpty(log);
    ASSERT_NE(dom.find("data-rendered=\"yes\""), std::string::npos)
        << "the script did not finish:\n"
        << dom.substr(0, 3000);
  }

  fs::path dir_;
};

TEST_F(DashboardBrowserTest, ChromiumRendersCurvesVerdictsAndRecordsFromRealRecords) {
  std::string chromium = Chromium();
  ASSERT_FALSE(chromium.empty()) << "no Chromium: `make test` installs Debian's chromium package "
                                    "(scripts/install-deps.sh --with-browser), or set CHROMIUM";
  std::ofstream(dir_ / "recipe.yaml")
      << "servebench: 1\nrecipes:\n  dash-sim:\n    engine: sim\n    model: llama-3.1-8b\n"
         "    hardware: h200\n    precision: bf16\n    sim:\n      time_scale: 0.1\n"
         // The sim's power, read through its /metrics (docs/power.md): a 0.4 s averaged
         // reading sampled every 0.4 s. With 256 output tokens the points last 6 to 25
         // simulated seconds, above the 4 s valid power needs, and the gap limit is
         // 120 ms of wall time, which a loaded machine's stalls stay under.
         "      power_average_s: 0.4\n"
         "    load:\n      dataset: random\n      prompts_per_concurrency: 4\n"
         "    scenarios:\n      - isl: 64\n        osl: 256\n        search_space:\n"
         "          - tp: 1\n            concurrency: [1, 4, 16]\n"
         "          - tp: 1\n            spec_decoding:\n              method: eagle3\n"
         "              draft_model: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\n"
         "              num_speculative_tokens: 3\n"
         "              acceptance: {mode: synthetic, length: 2.5}\n"
         "            concurrency: [1, 4, 16]\n";
  auto run = RunShell(std::string(SERVEBENCH_BIN) + " run " + (dir_ / "recipe.yaml").string() +
                      " --out " + (dir_ / "out").string() + " --db " + (dir_ / "sb.db").string() +
                      " --issue-delay-limit-ms 100000 --server-lag-limit-ms 100000"
                      " --power-sample-period 0.4");
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
  std::string dom;
  ASSERT_NO_FATAL_FAILURE(DumpDom(chromium, measured_page, &dom));
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
  EXPECT_NE(dom.find("sim ×0.1"), std::string::npos);

  // Curves: one workload, two configurations, three points each on the newest night
  // and five earlier nights drawn faint under them, a frontier.
  EXPECT_EQ(Count(dom, "class=\"chart-svg\""), 1u);
  EXPECT_EQ(Count(dom, "class=\"curve\""), 2u);
  EXPECT_EQ(Count(dom, "class=\"curve history\""), 10u);
  EXPECT_NE(dom.find("Simulated engine: simulated, clock at time scale 0.1 (numbers in simulated "
                     "time)"),
            std::string::npos);
  // The regressed series is drawn distinct: its point, and only it, is ringed.
  EXPECT_EQ(Count(dom, "class=\"pt\""), 5u);
  EXPECT_EQ(Count(dom, "class=\"pt regressed\""), 1u);
  EXPECT_NE(dom.find("class=\"pt regressed\" cx="), std::string::npos);
  std::regex regressed_dot("class=\"pt regressed\"[^>]*data-series=\"" + slow + "\"");
  EXPECT_TRUE(std::regex_search(dom, regressed_dot)) << "the ringed point is the slowed series";
  EXPECT_NE(dom.find("data-config=\"tp1 eagle3 n3\""), std::string::npos);
  // The frontier is drawn when it has two points or more. Which points are on it is
  // what the sim measured (on a loaded machine one point can dominate the others;
  // DashboardDataTest pins its computation), so the page is held to the data it embeds.
  json::object data = EmbeddedData(ReadFileOrEmpty(page));
  size_t frontier_points = data.at("charts").as_array().at(0).at("frontier").as_array().size();
  EXPECT_GE(frontier_points, 1u);
  EXPECT_EQ(Count(dom, "class=\"frontier\""), frontier_points > 1 ? 1u : 0u) << frontier_points;

  // Beside it, output tokens per joule against interactivity: every point of the newest
  // night that measured valid power, at its stored value, at the same interactivity
  // as its throughput point; the others are left out, and the chart says how many.
  // (Normally all six have power; a point whose sampler stalled past the gap limit on
  // a loaded machine has none.)
  EXPECT_EQ(Count(dom, "class=\"chart-svg tpj-svg\" data-metric=\"output_tokens_per_joule\""), 1u);
  std::vector<std::pair<double, double>> drawn;  // (stored tok/J, cy)
  size_t without_power = 0;
  for (const json::object& r : measured) {
    std::string id = std::string(r.at("record_id").as_string()) + "-n5";  // the newest night
    std::smatch tput_dot, tpj_dot;
    ASSERT_TRUE(std::regex_search(
        dom, tput_dot,
        std::regex("<circle class=\"pt( regressed)?\" cx=\"([^\"]+)\"[^>]*data-record=\"" + id +
                   "\"")))
        << id;
    bool has_dot = std::regex_search(
        dom, tpj_dot,
        std::regex("<circle class=\"tpj-pt( regressed)?\" cx=\"([^\"]+)\" cy=\"([^\"]+)\"[^>]*"
                   "data-record=\"" +
                   id + "\"[^>]*data-value=\"([^\"]+)\""));
    const json::value& stored = r.at("headline").at("output_tokens_per_joule");
    if (!stored.is_number()) {
      EXPECT_FALSE(has_dot) << id << " has no power but is drawn";
      ++without_power;
      continue;
    }
    ASSERT_TRUE(has_dot) << id << " has " << stored << " tok/J but no point on the chart";
    double v = stored.to_number<double>();
    EXPECT_NEAR(std::stod(tpj_dot[4]), v, 1e-12 * v) << id;
    EXPECT_NEAR(std::stod(tpj_dot[2]), std::stod(tput_dot[2]), 1e-6) << id;
    drawn.emplace_back(v, std::stod(tpj_dot[3]));
  }
  ASSERT_FALSE(drawn.empty()) << "no point measured valid power on the sim";
  // Drawn to scale: cy = base - k × value, one k > 0 for every point (a larger value
  // higher, the axis at 0).
  auto [v_max, cy_max] = *std::max_element(drawn.begin(), drawn.end());
  std::optional<double> scale;
  for (const auto& [v, cy] : drawn) {
    if (v_max - v < 1e-9 * v_max) continue;
    double k = (cy - cy_max) / (v_max - v);
    EXPECT_GT(k, 0) << "a larger value is drawn higher";
    if (!scale) scale = k;
    EXPECT_NEAR(k, *scale, 1e-6 * *scale) << "every point on one scale";
  }
  EXPECT_EQ(Count(dom, "class=\"tpj-pt\"") + Count(dom, "class=\"tpj-pt regressed\""),
            drawn.size());
  // One curve per configuration with a powered point, each over its five earlier nights.
  size_t powered_configs = 0;
  for (const json::value& c : data.at("charts").as_array().at(0).at("curves").as_array()) {
    const json::array& points = c.at("points").as_array();
    powered_configs += std::any_of(points.begin(), points.end(), [](const json::value& p) {
      return p.at("output_tokens_per_joule").is_number();
    });
  }
  EXPECT_EQ(Count(dom, "class=\"tpj-curve\""), powered_configs);
  EXPECT_EQ(Count(dom, "class=\"tpj-curve history\""), 5 * powered_configs);
  // (The page's own script is in the DOM too: look for the element it adds.)
  size_t left_out = dom.find("<p class=\"note tpj-left-out\">");
  EXPECT_EQ(left_out != std::string::npos, without_power > 0)
      << (left_out != std::string::npos ? dom.substr(left_out, 200) : "");
  if (without_power > 0) {
    EXPECT_NE(dom.find("<p class=\"note tpj-left-out\">" + std::to_string(without_power) +
                       " point(s) of the newest night without valid GPU power left out"),
              std::string::npos);
  }
  EXPECT_NE(dom.find(">output_tokens_per_joule: output tok per GPU joule</text>"),
            std::string::npos);

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

  // The same history with no valid power anywhere (power_valid false: the headline's
  // power keys null): the throughput curves as before, and in place of the
  // tokens-per-joule curve a line that says no point measured valid GPU power.
  fs::create_directories(dir_ / "no-power");
  for (const auto& f : fs::directory_iterator(dir_ / "history")) {
    json::object r = json::parse(ReadFileOrEmpty(f.path())).as_object();
    if (r.at("headline").is_object()) {
      for (const char* k : {"avg_power_w", "total_gpu_energy_j", "joules_per_output_token",
                            "output_tokens_per_joule"}) {
        r["headline"].as_object()[k] = nullptr;
      }
    }
    std::ofstream(dir_ / "no-power" / f.path().filename()) << json::serialize(r);
  }
  fs::path bare = dir_ / "no-power.html";
  auto bare_dash = RunShell(std::string(SERVEBENCH_BIN) + " dashboard --records " +
                            (dir_ / "no-power").string() + " --out " + bare.string());
  ASSERT_EQ(bare_dash.exit_code, 0) << bare_dash.output;
  std::string bare_dom;
  ASSERT_NO_FATAL_FAILURE(DumpDom(chromium, bare, &bare_dom));
  EXPECT_EQ(Count(bare_dom, "class=\"curve\""), 2u);
  EXPECT_EQ(Count(bare_dom, "tpj-svg"), 0u);
  EXPECT_EQ(Count(bare_dom, "class=\"tpj-pt"), 0u);
  EXPECT_NE(bare_dom.find("<p class=\"empty tpj-empty\">No point of this workload measured valid "
                          "GPU power: no output_tokens_per_joule curve"),
            std::string::npos);
}

}  // namespace
}  // namespace servebench::web
