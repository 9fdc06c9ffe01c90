// The records of a search (search_records.h): each probe a record of its load point,
// the answer a record whose series is the search's identity and whose headline holds
// the boundary; built from the real strategy over injected probes (no server).
#include "search/search_records.h"

#include <gtest/gtest.h>

#include <set>

#include "recipe/recipe.h"
#include "record/record_builder.h"
#include "record/record_json.h"

namespace servebench::search {
namespace {

namespace json = boost::json;

// P99 TTFT of 10 ms per unit of the varied value (the boundary of ttft_p99_ms <= 10 T
// is T), with the result keys a bench result has, so the probe's headline has them.
ProbeRun TtftRun(double value) {
  ProbeRun r;
  r.summary.ttft = metrics::ComputeStats({10 * value}, {99});
  r.summary.completed = 4;
  r.result = json::object{{"completed", 4},
                          {"failed", 0},
                          {"request_throughput", 2.0},
                          {"output_throughput", 100.0},
                          {"total_token_throughput", 300.0},
                          {"median_ttft_ms", 10 * value},
                          {"p99_ttft_ms", 10 * value}};
  return r;
}

SearchSettings Settings(double boundary, const std::string& stat = "ttft_p99_ms") {
  SearchSettings s;
  s.bench.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.bench.random_input_len = 128;
  s.bench.random_output_len = 32;
  s.bench.gpus.num_gpus = 2;
  s.prompts_per_concurrency = 6;
  s.max = 64;
  s.repeats = 3;
  auto limit = ParseSloLimit(stat + "<=" + std::to_string(10 * boundary));
  EXPECT_TRUE(limit.ok()) << limit.status().ToString();
  s.slos = {*limit};
  return s;
}

SearchIdentity Identity(const std::string& image, const std::string& date) {
  SearchIdentity id;
  id.recipe = "llama8b-slo";
  id.engine = "vllm";
  id.hardware = "h200";
  id.precision = "bf16";
  id.build = {image, "c0ffee", date};
  id.run_id = "night-" + date;
  id.host = "node-1";
  return id;
}

TEST(SearchRecordsTest, TheAnswerCarriesTheBoundaryAsAHeadlineMetric) {
  SearchSettings s = Settings(37);
  SearchResult r = RunSloSearch(s, TtftRun);
  ASSERT_EQ(r.boundary, 37);
  SearchRecords rec = BuildSearchRecords(s, Identity("vllm:nightly-1", "2026-11-01"), r);
  const record::Record& a = rec.answer;
  EXPECT_EQ(a.status, record::RecordStatus::kOk);
  ASSERT_TRUE(a.headline.has_value());
  EXPECT_EQ(a.headline->max_concurrency_at_slo, 37);
  EXPECT_FALSE(a.headline->max_request_rate_at_slo.has_value());
  EXPECT_FALSE(a.headline->tput_per_gpu.has_value());  // the answer is not a load run
  EXPECT_FALSE(a.concurrency.has_value());
  EXPECT_EQ(a.run_id, "night-2026-11-01");
  EXPECT_EQ(a.build.date, "2026-11-01");
  EXPECT_EQ(a.engine, "vllm");
  EXPECT_EQ(a.hardware, "h200");
  EXPECT_EQ(a.deployment.num_gpus, 2);
  // Its summary is the search JSON, each probe naming its record instead of its result.
  ASSERT_TRUE(a.summary.has_value());
  EXPECT_EQ(a.summary->at("max_concurrency_at_slo").as_int64(), 37);
  const json::array& probes = a.summary->at("probes").as_array();
  ASSERT_EQ(probes.size(), rec.probes.size());
  for (size_t i = 0; i < probes.size(); ++i) {
    EXPECT_FALSE(probes[i].as_object().contains("result"));
    EXPECT_EQ(probes[i].at("record_id").as_string(), rec.probes[i].record_id);
  }
  // The record reads back as written (the one codec; field rules hold).
  auto back = record::FromJson(record::ToJson(a));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, a);
}

TEST(SearchRecordsTest, EveryProbeIsARecordOfItsLoadPoint) {
  SearchSettings s = Settings(37);
  SearchResult r = RunSloSearch(s, TtftRun);
  SearchRecords rec = BuildSearchRecords(s, Identity("vllm:nightly-1", "2026-11-01"), r);
  ASSERT_EQ(rec.probes.size(), r.probes.size());
  std::set<std::string> record_ids;
  std::map<double, std::set<std::string>> series_by_value;
  for (size_t i = 0; i < r.probes.size(); ++i) {
    const record::Record& p = rec.probes[i];
    double value = r.probes[i].value;
    EXPECT_EQ(p.run_id, "night-2026-11-01-p" + std::to_string(i + 1));
    EXPECT_EQ(p.concurrency, static_cast<int64_t>(value));
    ASSERT_TRUE(p.point.has_value());
    EXPECT_EQ(p.point->at("load").at("num_prompts").as_int64(), 6 * static_cast<int64_t>(value));
    EXPECT_EQ(p.status, record::RecordStatus::kOk);  // valid; meeting the SLO is the search's
    ASSERT_TRUE(p.headline.has_value());
    EXPECT_EQ(p.headline->p99_ttft_ms, 10 * value);
    EXPECT_EQ(p.headline->tput_per_gpu, 150.0);  // 300 tok/s over --num-gpus 2
    EXPECT_FALSE(p.headline->max_concurrency_at_slo.has_value());
    EXPECT_NE(p.series_id, rec.answer.series_id);
    record_ids.insert(p.record_id);
    series_by_value[value].insert(p.series_id);
  }
  // Repeats beside the boundary (--search-repeats 3) are distinct records of one series.
  EXPECT_EQ(record_ids.size(), r.probes.size());
  EXPECT_GT(r.probes.size(), series_by_value.size());
  for (const auto& [value, series] : series_by_value) EXPECT_EQ(series.size(), 1u) << value;
}

TEST(SearchRecordsTest, TheAnswersSeriesIsTheSearchNotTheBuild) {
  SearchSettings s = Settings(37);
  SearchResult r = RunSloSearch(s, TtftRun);
  std::string night1 =
      BuildSearchRecords(s, Identity("vllm:nightly-1", "2026-11-01"), r).answer.series_id;
  std::string night2 =
      BuildSearchRecords(s, Identity("vllm:nightly-2", "2026-11-02"), r).answer.series_id;
  EXPECT_EQ(night1, night2);  // tonight's build is compared with last night's

  SearchSettings other_limit = Settings(37, "ttft_median_ms");
  SearchSettings other_range = s;
  other_range.max = 128;
  SearchSettings other_load = s;
  other_load.bench.random_output_len = 64;
  SearchIdentity other_engine = Identity("vllm:nightly-1", "2026-11-01");
  other_engine.engine = "sglang";
  for (const SearchSettings& o : {other_limit, other_range, other_load}) {
    EXPECT_NE(AnswerPoint(o, Identity("x", "2026-11-01")).point_id,
              AnswerPoint(s, Identity("x", "2026-11-01")).point_id);
  }
  EXPECT_NE(BuildSearchRecords(s, other_engine, r).answer.series_id, night1);
}

TEST(SearchRecordsTest, InTheRecipeFormTheAnswerIsTheRecipePointsOutcome) {
  SearchSettings s = Settings(37);
  SearchResult r = RunSloSearch(s, TtftRun);
  SearchIdentity id = Identity("vllm:nightly-1", "2026-11-01");
  recipe::Point point;
  point.recipe = "slo-recipe";
  point.serve.engine = "vllm";
  point.serve.model = "meta-llama/Llama-3.1-8B-Instruct";
  point.load.isl = 128;
  point.load.osl = 32;
  point.load.search.vary = "concurrency";
  recipe::AssignIds(&point);
  id.recipe_point = point;
  SearchRecords rec = BuildSearchRecords(s, id, r);
  // What `run --resume` looks up, and what a failed search is recorded under.
  EXPECT_EQ(rec.answer.point_id, point.point_id);
  EXPECT_EQ(rec.answer.record_id, record::RecordId(point.point_id, id.run_id));
  ASSERT_FALSE(rec.probes.empty());
  for (const record::Record& p : rec.probes) {
    EXPECT_NE(p.point_id, point.point_id);      // each probe is a load point of its own
    EXPECT_EQ(p.session_id, point.session_id);  // run in the recipe point's session
  }
  // Its series is still the search's, apart from the probes' and the point's own.
  EXPECT_NE(rec.answer.series_id, record::SeriesId(point));
  EXPECT_NE(rec.answer.series_id, rec.probes.front().series_id);
}

TEST(SearchRecordsTest, AnAnswerThatIsNotANumberFailsOrIsInvalidSayingWhy) {
  SearchSettings s = Settings(0.5);  // even concurrency 1 misses the limit
  SearchResult none = RunSloSearch(s, TtftRun);
  ASSERT_FALSE(none.boundary.has_value());
  record::Record a = BuildSearchRecords(s, Identity("i", "2026-11-01"), none).answer;
  EXPECT_EQ(a.status, record::RecordStatus::kFailed);
  EXPECT_EQ(a.failure_class, failure_class::kRunSloNotMet);
  EXPECT_FALSE(a.headline->max_concurrency_at_slo.has_value());

  int calls = 0;
  SearchResult stopped = RunSloSearch(Settings(37), [&](double v) -> StatusOr<ProbeRun> {
    if (++calls > 2) return Status::Unavailable("connect 127.0.0.1:1: refused");
    return TtftRun(v);
  });
  a = BuildSearchRecords(Settings(37), Identity("i", "2026-11-01"), stopped).answer;
  EXPECT_EQ(a.status, record::RecordStatus::kFailed);
  EXPECT_EQ(a.failure_class, failure_class::kClientError);
  EXPECT_NE(a.failure_reason.find("refused"), std::string::npos) << a.failure_reason;

  SearchResult interrupted = RunSloSearch(Settings(37), [](double v) {
    ProbeRun run = TtftRun(v);
    run.interrupted = v >= 4;
    return StatusOr<ProbeRun>(run);
  });
  SearchRecords rec = BuildSearchRecords(Settings(37), Identity("i", "2026-11-01"), interrupted);
  EXPECT_EQ(rec.answer.status, record::RecordStatus::kInvalid);
  EXPECT_EQ(rec.answer.failure_class, failure_class::kRunInterrupted);
  EXPECT_TRUE(rec.answer.interrupted);
  ASSERT_FALSE(rec.probes.empty());
  EXPECT_EQ(rec.probes.back().status, record::RecordStatus::kInvalid);
  EXPECT_TRUE(rec.probes.back().interrupted);
}

}  // namespace
}  // namespace servebench::search
