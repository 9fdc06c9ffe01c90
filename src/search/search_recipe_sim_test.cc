// The recipe form of `servebench search`: a native scenario's `search:` run by the
// real `servebench run` on a real `servebench sim` session over loopback. The boundary
// it finds for a TTFT limit is the one the sim's own prediction (sim::PredictClosedLoop,
// what `servebench sim --predict` prints) puts at that limit, within one concurrency
// step, and it keeps the records the command keeps: one per probe, one for the answer,
// each of the recipe's own point.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "record/record_files.h"
#include "sim/predict.h"
#include "sim/resolved_config.h"

namespace servebench::search {
namespace {

namespace fs = std::filesystem;

// As search_sim_test's: four batch slots, so requests beyond them queue and closed-loop
// TTFT jumps by about one request's duration per extra wave.
constexpr int kMaxNumSeqs = 4;
constexpr int kIsl = 128, kOsl = 32, kPromptsPerConcurrency = 6, kMaxConcurrency = 16;

// The predicted median TTFT (ms) by concurrency, and the concurrency in [4, 12] after
// which it jumps the most, with the limit halfway across that jump.
struct Prediction {
  int boundary = 0;
  double limit_ms = 0;
};

Prediction Predict() {
  sim::SimSettings s;
  s.max_num_seqs = kMaxNumSeqs;
  auto config = sim::Resolve(s);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  std::vector<double> ttft(kMaxConcurrency + 1, 0);
  for (int c = 1; c <= kMaxConcurrency; ++c) {
    sim::PredictLoad load;
    load.concurrency = c;
    load.isl = kIsl;
    load.osl = kOsl;
    load.num_requests = kPromptsPerConcurrency * c;
    auto p = sim::PredictClosedLoop(*config->perf, config->scheduler, config->engine, load);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    ttft[static_cast<size_t>(c)] = p->median_ttft_ms;
  }
  int best = 4;
  for (int c = 4; c <= 12; ++c) {
    if (ttft[c + 1] / ttft[c] > ttft[best + 1] / ttft[best]) best = c;
  }
  EXPECT_GT(ttft[best + 1] / ttft[best], 1.15) << "no clear boundary to find";
  return {best, (ttft[best] + ttft[best + 1]) / 2};
}

class SearchRecipeSimTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = servebench::testing::FreshTestDir("search_recipe"); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string WriteRecipe(const std::string& search) {
    std::ostringstream y;
    y << "servebench: 1\nrecipes:\n  slo-sim:\n    engine: sim\n    model: llama-3.1-8b\n"
      << "    hardware: h200\n    precision: bf16\n    readiness_timeout_s: 60\n"
      << "    extra_args: [\"--max-num-seqs\", \"" << kMaxNumSeqs << "\"]\n"
      << "    sim:\n      seed: 1\n"
      << "    load:\n      prompts_per_concurrency: " << kPromptsPerConcurrency << "\n"
      << "    scenarios:\n      - isl: " << kIsl << "\n        osl: " << kOsl << "\n"
      << search << "        search_space:\n          - tp: 1\n";
    std::string path = (dir_ / "recipe.yaml").string();
    std::ofstream(path) << y.str();
    return path;
  }
  servebench::testing::ProcessResult Servebench(std::vector<std::string> args, double timeout_s) {
    args.insert(args.begin(), SERVEBENCH_BIN);
    return servebench::testing::RunProcess(args, timeout_s);
  }

  fs::path dir_;
};

TEST_F(SearchRecipeSimTest, RunFindsTheSimsPredictedBoundaryAndKeepsTheSearchsRecords) {
  const Prediction predicted = Predict();
  const std::string limit = fmt::format("ttft_median_ms<={:.1f}", predicted.limit_ms);
  std::string recipe =
      WriteRecipe("        search:\n          vary: concurrency\n          slo: [" + limit +
                  "]\n          max: " + std::to_string(kMaxConcurrency) + "\n");

  // The dry run shows the search, and starts nothing.
  auto dry = Servebench({"run", recipe, "--dry-run"}, 60);
  ASSERT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_NE(dry.out.find("1 point(s) at concurrency searched"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("search: the highest concurrency meeting " + limit +
                         " in 1 .. 16 (step 1)"
                         ", repeats 1, at most 40 probes, 6 × concurrency prompts per probe"),
            std::string::npos)
      << dry.out;

  const fs::path out = dir_ / "out";
  auto run = Servebench(
      {"run", recipe, "--out", out.string(), "--db", (dir_ / "sb.db").string(), "--run-id",
       "slo-night-1", "--issue-delay-limit-ms", "100000", "--server-lag-limit-ms", "100000",
       "--gpu-telemetry", "none", "--idle-power-s", "0"},
      600);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string log = run.out + run.err;
  EXPECT_NE(log.find("max concurrency at SLO (" + limit + "): "), std::string::npos) << log;

  auto records = record::ReadRecordFolder((out / "records").string());
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  const record::Record* answer = nullptr;
  std::vector<const record::Record*> probes;
  for (const record::Record& r : *records) {
    EXPECT_EQ(r.recipe, "slo-sim");
    EXPECT_EQ(r.deployment.tp, 1);
    if (r.headline && r.headline->max_concurrency_at_slo) {
      answer = &r;
    } else {
      probes.push_back(&r);
    }
  }
  ASSERT_NE(answer, nullptr) << log;
  ASSERT_GE(probes.size(), 3u) << log;
  // The answer: the sim's predicted boundary within one step, a series of its own.
  EXPECT_EQ(answer->status, record::RecordStatus::kOk) << answer->failure_reason;
  EXPECT_EQ(answer->run_id, "slo-night-1");
  EXPECT_FALSE(answer->concurrency.has_value());
  EXPECT_LE(std::abs(*answer->headline->max_concurrency_at_slo - predicted.boundary), 1.0)
      << "predicted " << predicted.boundary << " at " << limit << "\n"
      << log;
  // Each probe: a record of the recipe's point at the probed concurrency, `run-p<k>`.
  std::vector<std::string> run_ids;
  for (const record::Record* p : probes) {
    ASSERT_TRUE(p->concurrency.has_value());
    EXPECT_GE(*p->concurrency, 1);
    EXPECT_LE(*p->concurrency, kMaxConcurrency);
    EXPECT_EQ(p->headline->completed, kPromptsPerConcurrency * *p->concurrency) << p->record_id;
    run_ids.push_back(p->run_id);
  }
  std::sort(run_ids.begin(), run_ids.end());
  EXPECT_EQ(run_ids.front(), "slo-night-1-p1");
  // The answer's summary lists every probe by its record.
  ASSERT_TRUE(answer->summary.has_value());
  const auto& listed = answer->summary->at("probes").as_array();
  EXPECT_EQ(listed.size(), probes.size());

  // The answer is the recipe point's outcome: `--resume` finds it in the store and
  // neither starts the engine nor searches again.
  const size_t kept = records->size();
  auto again = Servebench(
      {"run", recipe, "--out", out.string(), "--db", (dir_ / "sb.db").string(), "--run-id",
       "slo-night-2", "--resume", "--gpu-telemetry", "none", "--idle-power-s", "0"},
      120);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  const std::string log2 = again.out + again.err;
  EXPECT_NE(log2.find("1 already ok (resumed); 0 server start(s)"), std::string::npos) << log2;
  auto after = record::ReadRecordFolder((out / "records").string());
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->size(), kept) << log2;
}

// Bad limits and ranges are refused before anything starts, at the search key's line.
TEST_F(SearchRecipeSimTest, BadLimitsAndRangesAreRefusedAtTheirLineBeforeAnythingStarts) {
  struct Case {
    std::string search, message, at;
  };
  const std::vector<Case> cases = {
      {"          vary: concurrency\n          slo: [ttft_p99_ms<=500, ttfx_p99_ms<=5]\n",
       "search.slo[1]: --slo", "recipe.yaml:19:"},
      {"          vary: concurrency\n          slo: [ttft_p99_ms<=-3]\n",
       "search.slo[0]: --slo 'ttft_p99_ms<=-3': the limit '-3' must be a number of ms > 0",
       "recipe.yaml:19:"},
      {"          vary: concurrency\n          slo: [ttft_p99_ms<=500]\n          min: 8\n"
       "          max: 4\n",
       "search.min: --search-min 8 / --search-max 4: need 0 < min <= max", "recipe.yaml:20:"},
      {"          vary: rate\n          slo: [ttft_p99_ms<=500]\n          repeats: 12\n",
       "search.repeats: --search-repeats 12: must be 1 .. 9", "recipe.yaml:20:"},
  };
  for (const Case& c : cases) {
    std::string recipe = WriteRecipe("        search:\n" + c.search);
    auto v = Servebench({"validate", recipe}, 60);
    EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
    const std::string said = v.out + v.err;
    EXPECT_NE(said.find(c.message), std::string::npos) << said;
    EXPECT_NE(said.find(c.at), std::string::npos) << said;
    auto run = Servebench({"run", recipe, "--out", (dir_ / "out").string()}, 60);
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_NE((run.out + run.err).find(c.message), std::string::npos) << run.out << run.err;
    EXPECT_FALSE(fs::exists(dir_ / "out" / "logs")) << "an engine started";
  }
}

}  // namespace
}  // namespace servebench::search
