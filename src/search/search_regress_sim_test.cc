// Issue #19's "a regressed build's boundary is flagged by regress", end to end over
// loopback: `servebench search` runs against the real `servebench sim` on six nights
// of a good build, then against the same sim made slower (`--build-slowdown 2`, the
// sim's stand-in for a slower engine build) on the seventh; each search writes its
// probe and answer records, and `servebench regress` over those records exits 4 with
// the answer's series a regression on max_concurrency_at_slo. Slow: seven searches.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "record/record_files.h"
#include "sim/predict.h"
#include "sim/resolved_config.h"
#include "sim/testing/sim_process.h"

namespace servebench::search {
namespace {

using sim::testing::SimProcess;

// Four batch slots. A request first pays the serving stack's overhead (in parallel with
// the others, engine profile request_overhead_ms), then holds a slot for its prefill and
// decode steps; once the closed loop offers more than the slots can serve, median
// end-to-end latency grows with concurrency (c / the slots' throughput), and twice-as-
// slow steps halve that throughput, so the concurrency at a fixed E2EL limit halves.
constexpr int kMaxNumSeqs = 4, kIsl = 128, kOsl = 16;

// The median end-to-end latency of one request with the batch slots not full, as
// `servebench sim --predict` models it: TTFT + (OSL - 1) x TPOT at concurrency 1.
double PredictedRequestMs() {
  sim::SimSettings s;
  s.max_num_seqs = kMaxNumSeqs;
  auto config = sim::Resolve(s);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  sim::PredictLoad load;
  load.concurrency = 1;
  load.isl = kIsl;
  load.osl = kOsl;
  auto p = sim::PredictClosedLoop(*config->perf, config->scheduler, config->engine, load);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p->median_ttft_ms + (kOsl - 1) * p->median_tpot_ms;
}

// One night's search: its result and records under `dir`/<date>/.
servebench::testing::ProcessResult Search(const SimProcess& sim, const std::string& dir,
                                          const std::string& date, const std::string& image,
                                          double limit_ms) {
  std::string out = dir + "/" + date;
  std::filesystem::create_directories(out);
  std::vector<std::string> argv = {SERVEBENCH_BIN,
                                   "search",
                                   "--base-url",
                                   sim.base_url(),
                                   "--model",
                                   "meta-llama/Llama-3.1-8B-Instruct",
                                   "--random-input-len",
                                   std::to_string(kIsl),
                                   "--random-output-len",
                                   std::to_string(kOsl),
                                   "--ignore-eos",
                                   "--sim-time-scale",
                                   "0.05",
                                   "--issue-delay-limit-ms",
                                   "100000",
                                   "--server-lag-limit-ms",
                                   "100000",
                                   "--no-progress",
                                   "--slo",
                                   "e2el_median_ms<=" + std::to_string(limit_ms),
                                   "--search-min",
                                   "4",
                                   "--search-max",
                                   "64",
                                   "--search-step",
                                   "2",
                                   "--search-prompts-per-concurrency",
                                   "3",
                                   "--recipe",
                                   "llama8b-slo-search",
                                   "--engine",
                                   "sim",
                                   "--hardware",
                                   "h200",
                                   "--build-image",
                                   image,
                                   "--build-commit",
                                   "c-" + date,
                                   "--build-date",
                                   date,
                                   "--run-id",
                                   "night-" + date,
                                   "--result-filename",
                                   out + "/search.json"};
  return servebench::testing::RunProcess(argv, 120);
}

TEST(SearchRegressSimTest, ASlowerBuildsLowerBoundaryIsARegression) {
  // 1.9 unloaded request times (about 910 ms): the good build stays under it up to
  // about concurrency 30, the build twice as slow up to about 15 (measured here:
  // docs/search.md, "The answer as a nightly series").
  const double limit_ms = 1.9 * PredictedRequestMs();
  SimProcess good(
      {"--max-num-seqs", std::to_string(kMaxNumSeqs), "--seed", "1", "--time-scale", "0.05"});
  SimProcess slow({"--max-num-seqs", std::to_string(kMaxNumSeqs), "--seed", "1", "--time-scale",
                   "0.05", "--build-slowdown", "2"});
  ASSERT_TRUE(good.ready()) << good.output();
  ASSERT_TRUE(slow.ready()) << slow.output();
  std::string dir = ::testing::TempDir() + "/search-regress";
  std::filesystem::remove_all(dir);

  std::vector<int64_t> good_boundaries;
  for (int night = 1; night <= 6; ++night) {
    std::string date = "2026-11-0" + std::to_string(night);
    auto p = Search(good, dir, date, "sim:good", limit_ms);
    ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
    auto o =
        boost::json::parse(servebench::testing::ReadFileOrEmpty(dir + "/" + date + "/search.json"));
    ASSERT_TRUE(o.at("max_concurrency_at_slo").is_int64()) << p.out;
    good_boundaries.push_back(o.at("max_concurrency_at_slo").as_int64());
  }
  auto bad = Search(slow, dir, "2026-11-07", "sim:slower", limit_ms);
  ASSERT_EQ(bad.exit_code, 0) << bad.out << bad.err;
  auto tonight =
      boost::json::parse(servebench::testing::ReadFileOrEmpty(dir + "/2026-11-07/search.json"));
  std::string trail = "good boundaries:";
  for (int64_t b : good_boundaries) trail += " " + std::to_string(b);
  trail += "; tonight: " + boost::json::serialize(tonight.at("max_concurrency_at_slo"));
  // Tonight's answer is a record beside the result, whose series is the good nights'.
  auto records = record::ReadRecordFolder(dir + "/2026-11-07/records");
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  const record::Record* answer = nullptr;
  for (const record::Record& r : *records) {
    if (r.run_id == "night-2026-11-07") answer = &r;
  }
  ASSERT_NE(answer, nullptr);
  ASSERT_TRUE(answer->headline.has_value());
  for (int64_t b : good_boundaries) {
    if (answer->headline->max_concurrency_at_slo) {
      EXPECT_LT(*answer->headline->max_concurrency_at_slo, static_cast<double>(b)) << trail;
    }
  }

  std::string report = dir + "/regress.json";
  auto judged =
      servebench::testing::RunProcess({SERVEBENCH_BIN, "regress", "--records", dir, "--date",
                                       "2026-11-07", "--format", "json", "--output", report},
                                      60);
  EXPECT_EQ(judged.exit_code, 4) << trail << "\n" << judged.out << judged.err;
  auto verdicts = boost::json::parse(servebench::testing::ReadFileOrEmpty(report));
  bool flagged = false;
  for (const auto& v : verdicts.at("verdicts").as_array()) {
    if (v.at("series_id").as_string() != answer->series_id) continue;
    EXPECT_EQ(v.at("status").as_string(), "regression") << boost::json::serialize(v);
    for (const auto& m : v.at("metrics").as_array()) {
      if (m.at("metric").as_string() == "max_concurrency_at_slo" &&
          m.at("outcome").as_string() == "regression") {
        flagged = true;
      }
    }
  }
  EXPECT_TRUE(flagged) << trail << "\n" << servebench::testing::ReadFileOrEmpty(report);
}

}  // namespace
}  // namespace servebench::search
