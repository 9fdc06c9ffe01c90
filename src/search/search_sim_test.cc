// `servebench search` strategy with real probes against the real `servebench sim`
// over loopback: the concurrency boundary it finds for a TTFT limit is the one the
// sim's own prediction (sim::PredictClosedLoop, what `servebench sim --predict`
// prints) puts at that limit, within one concurrency step.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "record/record_files.h"
#include "search/slo_search.h"
#include "sim/predict.h"
#include "sim/resolved_config.h"
#include "sim/testing/sim_process.h"

namespace servebench::search {
namespace {

using sim::testing::SimProcess;

// Few batch slots, so requests beyond them queue: closed-loop TTFT then rises by
// about one request's duration per extra wave, which sets a boundary clearly above
// the noise of a shared CI machine.
constexpr int kMaxNumSeqs = 4;
constexpr int kIsl = 128, kOsl = 32, kPromptsPerConcurrency = 6, kMaxConcurrency = 16;

std::vector<double> PredictedMedianTtftMs() {
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
  return ttft;
}

// The concurrency c* in [4, 12] after which predicted TTFT jumps the most (relative),
// and the limit halfway across that jump.
std::pair<int, double> BoundaryAndLimit(const std::vector<double>& ttft) {
  int best = 4;
  for (int c = 4; c <= 12; ++c) {
    if (ttft[c + 1] / ttft[c] > ttft[best + 1] / ttft[best]) best = c;
  }
  return {best, (ttft[best] + ttft[best + 1]) / 2};
}

SearchSettings Search(const SimProcess& sim, double limit_ms) {
  SearchSettings s;
  s.bench.base_url = sim.base_url();
  s.bench.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.bench.random_input_len = kIsl;
  s.bench.random_output_len = kOsl;
  s.bench.ignore_eos = true;
  s.bench.request_timeout_s = 60;
  s.bench.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  s.bench.server_lag_limit_ms = 1e9;          // ... nor the simulated server's lateness
  s.prompts_per_concurrency = kPromptsPerConcurrency;
  s.max = kMaxConcurrency;
  auto slo = ParseSloLimit("ttft_median_ms<=" + std::to_string(limit_ms));
  EXPECT_TRUE(slo.ok()) << slo.status().ToString();
  s.slos = {*slo};
  return s;
}

TEST(SearchSimTest, ConcurrencyBoundaryMatchesTheSimsPredictionWithinOneStep) {
  std::vector<double> ttft = PredictedMedianTtftMs();
  for (int c = 2; c <= kMaxConcurrency; ++c) {
    ASSERT_GE(ttft[c], ttft[c - 1] * 0.98) << "predicted TTFT is not monotone at " << c;
  }
  auto [predicted, limit] = BoundaryAndLimit(ttft);
  ASSERT_GT(ttft[predicted + 1] / ttft[predicted], 1.15) << "no clear boundary to find";

  SimProcess sim({"--max-num-seqs", std::to_string(kMaxNumSeqs), "--seed", "1"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  SearchSettings s = Search(sim, limit);
  SearchResult r = RunSloSearch(s, BenchProbeRunner(s, nullptr));
  ASSERT_TRUE(r.stopped.ok()) << r.stopped.ToString();
  ASSERT_TRUE(r.boundary.has_value()) << SearchReport(s, r);
  EXPECT_LE(std::abs(*r.boundary - predicted), 1.0)
      << "predicted " << predicted << " at ttft_median_ms<=" << limit << "\n"
      << SearchReport(s, r);
  EXPECT_FALSE(r.capped_at_max);
  boost::json::object o = SearchResultJson(s, r);
  EXPECT_EQ(o.at("max_concurrency_at_slo").as_int64(), std::llround(*r.boundary));
  EXPECT_EQ(o.at("probes").as_array().size(), r.probes.size());
}

// The command: bench's flags plus --slo, the answer printed and written as JSON; bad
// input refused before any connection.
TEST(SearchSimTest, CommandPrintsTheBoundaryAndWritesItsJson) {
  SimProcess sim({"--time-scale", "0.1", "--seed", "1"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  // A folder of its own: the records go beside the result.
  std::string dir = ::testing::TempDir() + "/search-command-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string out = dir + "/search.json";
  std::vector<std::string> argv = {SERVEBENCH_BIN,
                                   "search",
                                   "--base-url",
                                   sim.base_url(),
                                   "--model",
                                   "meta-llama/Llama-3.1-8B-Instruct",
                                   "--random-input-len",
                                   "16",
                                   "--random-output-len",
                                   "8",
                                   "--ignore-eos",
                                   "--num-prompts",
                                   "8",
                                   "--issue-delay-limit-ms",
                                   "100000",
                                   "--server-lag-limit-ms",
                                   "100000",
                                   "--no-progress",
                                   "--slo",
                                   "e2el_p99_ms<=60000",
                                   "--search-max",
                                   "4",
                                   "--result-filename",
                                   out};
  servebench::testing::ProcessResult p = servebench::testing::RunProcess(argv, 120);
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_NE(p.out.find("max concurrency at SLO (e2el_p99_ms<=60000): 4"), std::string::npos)
      << p.out;
  boost::json::object o = boost::json::parse(servebench::testing::ReadFileOrEmpty(out)).as_object();
  EXPECT_EQ(o.at("max_concurrency_at_slo").as_int64(), 4);
  EXPECT_TRUE(o.at("capped_at_max").as_bool());
  EXPECT_EQ(o.at("probes").as_array().size(), 3u);  // 1, 2, 4
  EXPECT_EQ(o.at("probes").at(0).at("result").at("completed").as_int64(), 8);

  // Every probe is a record beside the result, and so is the answer; `ingest` stores
  // them as it stores `run`'s.
  auto records = record::ReadRecordFolder(dir + "/records");
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 4u);
  int answers = 0;
  for (const record::Record& r : *records) {
    EXPECT_EQ(r.status, record::RecordStatus::kOk) << r.record_id << " " << r.failure_reason;
    ASSERT_TRUE(r.headline.has_value());
    if (r.headline->max_concurrency_at_slo) {
      ++answers;
      EXPECT_EQ(*r.headline->max_concurrency_at_slo, 4);
      EXPECT_FALSE(r.concurrency.has_value());
    } else {
      EXPECT_EQ(r.headline->completed, 8) << r.record_id;
    }
  }
  EXPECT_EQ(answers, 1);
  servebench::testing::ProcessResult ingest =
      servebench::testing::RunProcess({SERVEBENCH_BIN, "ingest", dir, "--db", dir + "/sb.db"}, 60);
  EXPECT_EQ(ingest.exit_code, 0) << ingest.out << ingest.err;
  EXPECT_NE(ingest.out.find("4 inserted"), std::string::npos) << ingest.out;

  argv[argv.size() - 5] = "ttft_p99<=5";  // the --slo value
  servebench::testing::ProcessResult bad = servebench::testing::RunProcess(argv, 60);
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_NE(bad.err.find("<metric>_<stat>_ms"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace servebench::search
