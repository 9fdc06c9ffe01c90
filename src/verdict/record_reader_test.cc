#include "verdict/record_reader.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "record/record_json.h"

namespace servebench::verdict {
namespace {

namespace json = boost::json;

// A record as the first release wrote it (schema 1), read with the codec.
record::Record Read(const json::object& o) {
  StatusOr<record::Record> r = record::FromJson(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : record::Record{};
}

json::object Record(const std::string& id, const std::string& date, const std::string& status,
                    double total_tput, double tpot_ms) {
  return json::parse(R"({
    "schema_version": 1, "record_id": ")" +
                     id + R"(", "run_id": "run-1", "series_id": "s1", "point_id": "p1",
    "recipe": "r", "engine": "sim", "model": "m", "hardware": "h200", "precision": "fp8",
    "isl": 1024, "osl": 1024, "concurrency": 4, "tp": 2, "num_gpus": 2,
    "status": ")" + status +
                     R"(", "failure_class": "server.died_during_run", "failure_reason": "exit 1",
    "blocked": false, "build": {"image": "img", "commit": "abc", "date": ")" +
                     date + R"("},
    "provenance": {"started_at": ")" +
                     date + R"(T01:00:00Z"},
    "summary": {"total_token_throughput": )" +
                     std::to_string(total_tput) + R"(,
                "output_throughput": 500, "median_tpot_ms": )" +
                     std::to_string(tpot_ms) + R"(,
                "median_ttft_ms": 80, "p99_ttft_ms": 200, "failed": 0},
    "evals": {"tasks": [{"task": "gsm8k", "accuracy": 0.9, "n": 3, "items": {"a": true, "b": true, "c": false}}]}
  })")
      .as_object();
}

TEST(RecordReaderTest, ReadsMetricsPerGpuAndIdentity) {
  HistoryBuilder b;
  ASSERT_TRUE(b.Add(Read(Record("r1", "2026-11-28", "ok", 2000, 20))).ok());
  std::vector<SeriesHistory> hs = b.Finish();
  ASSERT_EQ(hs.size(), 1u);
  const Observation& o = hs[0].nights[0];
  EXPECT_EQ(o.build.date, "2026-11-28");
  EXPECT_EQ(o.build.commit, "abc");
  EXPECT_DOUBLE_EQ(o.metrics.at("tput_per_gpu"), 1000);
  EXPECT_DOUBLE_EQ(o.metrics.at("output_tput_per_gpu"), 250);
  EXPECT_DOUBLE_EQ(o.metrics.at("input_tput_per_gpu"), 750);
  EXPECT_DOUBLE_EQ(o.metrics.at("median_intvty"), 50);
  EXPECT_DOUBLE_EQ(o.metrics.at("p99_ttft_ms"), 200);
  ASSERT_EQ(o.accuracy.size(), 1u);
  EXPECT_EQ(o.accuracy[0].items.size(), 3u);
  EXPECT_EQ(hs[0].label, "r m h200 sim 1024/1024 tp2 c4") << "the configuration is named";
  EXPECT_FALSE(hs[0].curve_id.empty());
}

TEST(RecordReaderTest, ReadsLmEvalResultsEmbeddedInEvals) {
  HistoryBuilder b;
  json::object r = Record("r1", "2026-11-28", "ok", 2000, 20);
  r["evals"] = json::parse(R"({"results": {"gsm8k": {"exact_match,strict-match": 0.91,
      "exact_match,flexible-extract": 0.93, "exact_match_stderr,flexible-extract": 0.007}},
      "n-samples": {"gsm8k": {"original": 1319, "effective": 1319}}})");
  ASSERT_TRUE(b.Add(Read(r)).ok());
  // As run/ writes it: evals.gsm8k holds the results JSON, beside the gate verdict.
  json::object nested = Record("r2", "2026-11-29", "ok", 2000, 20);
  nested["evals"] =
      json::object{{"gsm8k", r["evals"]}, {"floor_gate", json::object{{"verdict", "pass"}}}};
  ASSERT_TRUE(b.Add(Read(nested)).ok());
  std::vector<SeriesHistory> hs = b.Finish();
  ASSERT_EQ(hs[0].nights[1].accuracy.size(), 1u);
  EXPECT_DOUBLE_EQ(hs[0].nights[1].accuracy[0].value, 0.93);
  const Observation& o = hs[0].nights[0];
  ASSERT_EQ(o.accuracy.size(), 1u);
  EXPECT_EQ(o.accuracy[0].task, "gsm8k");
  EXPECT_DOUBLE_EQ(o.accuracy[0].value, 0.93);
  EXPECT_EQ(o.accuracy[0].n, 1319);
}

TEST(RecordReaderTest, SameNightRecordsMergeIntoMedianAndRawRuns) {
  HistoryBuilder b;
  ASSERT_TRUE(b.Add(Read(Record("r1", "2026-11-28", "ok", 2000, 20))).ok());
  ASSERT_TRUE(b.Add(Read(Record("r2", "2026-11-28", "ok", 2200, 20))).ok());
  ASSERT_TRUE(b.Add(Read(Record("r3", "2026-11-28", "ok", 2100, 20))).ok());
  ASSERT_TRUE(b.Add(Read(Record("r4", "2026-11-28", "failed", 0, 0))).ok());
  std::vector<SeriesHistory> hs = b.Finish();
  const Observation& o = hs[0].nights[0];
  EXPECT_EQ(o.status, NightStatus::kOk);
  EXPECT_DOUBLE_EQ(o.metrics.at("tput_per_gpu"), 1050);
  EXPECT_EQ(o.raw_runs.at("tput_per_gpu").size(), 3u);
}

TEST(RecordReaderTest, RepetitionsBecomeRawRuns) {
  HistoryBuilder b;
  json::object r = Record("r1", "2026-11-28", "ok", 2000, 20);
  json::array reps;
  for (double t : {1900.0, 2000.0, 2100.0})
    reps.push_back(json::object{{"total_token_throughput", t}});
  r["summary"].as_object()["servebench"] = json::object{{"repetitions", reps}};
  ASSERT_TRUE(b.Add(Read(r)).ok());
  std::vector<SeriesHistory> hs = b.Finish();
  EXPECT_EQ(hs[0].nights[0].raw_runs.at("tput_per_gpu"), (std::vector<double>{950, 1000, 1050}));
}

TEST(RecordReaderTest, StatusesMapAndBlockedWins) {
  HistoryBuilder b;
  json::object blocked = Record("r1", "2026-11-28", "failed", 0, 0);
  blocked["blocked"] = true;
  blocked["blocked_reason"] = "needs a fix";
  ASSERT_TRUE(b.Add(Read(blocked)).ok());
  ASSERT_TRUE(b.Add(Read(Record("r2", "2026-11-29", "failed", 0, 0))).ok());
  json::object bad = Record("r3", "2026-11-30", "ok", 2000, 20);
  bad["summary"].as_object()["failed"] = 3;
  ASSERT_TRUE(b.Add(Read(bad)).ok());
  ASSERT_TRUE(b.Add(Read(Record("r4", "2026-12-01", "skipped", 0, 0))).ok());
  std::vector<Observation> n = b.Finish()[0].nights;
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0].status, NightStatus::kBlocked);
  EXPECT_NE(n[0].reason.find("needs a fix"), std::string::npos);
  EXPECT_EQ(n[1].status, NightStatus::kFailed);
  EXPECT_EQ(n[1].reason, "server.died_during_run: exit 1");
  EXPECT_EQ(n[2].status, NightStatus::kInvalid);
  EXPECT_NE(n[2].reason.find("failed_requests"), std::string::npos);
}

TEST(RecordReaderTest, RefusesARecordWithoutSeriesOrNight) {
  HistoryBuilder b;
  record::Record r = Read(Record("r1", "2026-11-28", "ok", 1, 1));
  r.series_id.clear();
  Status s = b.Add(r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("series_id"), std::string::npos);
  record::Record u = Read(Record("r2", "2026-11-28", "ok", 1, 1));
  u.build.date.clear();
  u.provenance.started_at.clear();
  EXPECT_NE(b.Add(u).message().find("build.date"), std::string::npos);
}

}  // namespace
}  // namespace servebench::verdict
