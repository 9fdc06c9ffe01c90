#include "verdict/record_reader.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <filesystem>

#include "common/atomic_file.h"

namespace servebench::verdict {
namespace {

namespace json = boost::json;

json::object Record(const std::string& id, const std::string& date, const std::string& status,
                    double total_tput, double tpot_ms) {
  return json::parse(R"({
    "schema_version": 1, "record_id": ")" +
                     id + R"(", "series_id": "s1", "point_id": "p1",
    "recipe": "r", "engine": "sim", "model": "m", "hardware": "h200", "precision": "fp8",
    "isl": 1024, "osl": 1024, "concurrency": 4, "tp": 2, "num_gpus": 2,
    "status": ")" + status +
                     R"(", "failure_class": "engine-died", "failure_reason": "exit 1",
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
  ASSERT_TRUE(b.Add(Record("r1", "2026-11-28", "ok", 2000, 20)).ok());
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
  EXPECT_EQ(hs[0].label, "r m h200 sim 1024/1024 c4");
  EXPECT_FALSE(hs[0].curve_id.empty());
}

TEST(RecordReaderTest, ReadsLmEvalResultsEmbeddedInEvals) {
  HistoryBuilder b;
  json::object r = Record("r1", "2026-11-28", "ok", 2000, 20);
  r["evals"] = json::parse(R"({"results": {"gsm8k": {"exact_match,strict-match": 0.91,
      "exact_match,flexible-extract": 0.93, "exact_match_stderr,flexible-extract": 0.007}},
      "n-samples": {"gsm8k": {"original": 1319, "effective": 1319}}})");
  ASSERT_TRUE(b.Add(r).ok());
  // As run/ writes it: evals.gsm8k holds the results JSON, beside the gate verdict.
  json::object nested = Record("r2", "2026-11-29", "ok", 2000, 20);
  nested["evals"] =
      json::object{{"gsm8k", r["evals"]}, {"floor_gate", json::object{{"verdict", "pass"}}}};
  ASSERT_TRUE(b.Add(nested).ok());
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
  ASSERT_TRUE(b.Add(Record("r1", "2026-11-28", "ok", 2000, 20)).ok());
  ASSERT_TRUE(b.Add(Record("r2", "2026-11-28", "ok", 2200, 20)).ok());
  ASSERT_TRUE(b.Add(Record("r3", "2026-11-28", "ok", 2100, 20)).ok());
  ASSERT_TRUE(b.Add(Record("r4", "2026-11-28", "failed", 0, 0)).ok());
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
  ASSERT_TRUE(b.Add(r).ok());
  std::vector<SeriesHistory> hs = b.Finish();
  EXPECT_EQ(hs[0].nights[0].raw_runs.at("tput_per_gpu"), (std::vector<double>{950, 1000, 1050}));
}

TEST(RecordReaderTest, StatusesMapAndBlockedWins) {
  HistoryBuilder b;
  json::object blocked = Record("r1", "2026-11-28", "failed", 0, 0);
  blocked["blocked"] = true;
  blocked["blocked_reason"] = "needs a fix";
  ASSERT_TRUE(b.Add(blocked).ok());
  ASSERT_TRUE(b.Add(Record("r2", "2026-11-29", "failed", 0, 0)).ok());
  json::object bad = Record("r3", "2026-11-30", "ok", 2000, 20);
  bad["summary"].as_object()["failed"] = 3;
  ASSERT_TRUE(b.Add(bad).ok());
  ASSERT_TRUE(b.Add(Record("r4", "2026-12-01", "skipped", 0, 0)).ok());
  std::vector<Observation> n = b.Finish()[0].nights;
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0].status, NightStatus::kBlocked);
  EXPECT_NE(n[0].reason.find("needs a fix"), std::string::npos);
  EXPECT_EQ(n[1].status, NightStatus::kFailed);
  EXPECT_EQ(n[1].reason, "engine-died: exit 1");
  EXPECT_EQ(n[2].status, NightStatus::kInvalid);
  EXPECT_NE(n[2].reason.find("failed_requests"), std::string::npos);
}

TEST(RecordReaderTest, RefusesARecordWithoutSeriesOrNight) {
  HistoryBuilder b;
  json::object r = Record("r1", "2026-11-28", "ok", 1, 1);
  r.erase("series_id");
  Status s = b.Add(r);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("series_id"), std::string::npos);
  json::object u = Record("r2", "", "ok", 1, 1);
  EXPECT_NE(b.Add(u).message().find("build.date"), std::string::npos);
}

TEST(RecordReaderTest, ReadsAFolderSkippingOtherJson) {
  std::string dir = ::testing::TempDir() + "/verdict_records_test";
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WriteFileAtomically(dir + "/records/a.json",
                                  json::serialize(Record("r1", "2026-11-28", "ok", 2000, 20)))
                  .ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/result.json", R"({"output_throughput": 1})").ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/notes.txt", "hello").ok());
  StatusOr<std::vector<json::object>> recs = ReadRecordDir(dir);
  ASSERT_TRUE(recs.ok()) << recs.status().ToString();
  EXPECT_EQ(recs->size(), 1u);
  ASSERT_TRUE(WriteFileAtomically(dir + "/broken.json", "{").ok());
  recs = ReadRecordDir(dir);
  ASSERT_FALSE(recs.ok());
  EXPECT_NE(recs.status().message().find("broken.json"), std::string::npos);
  EXPECT_EQ(ReadRecordDir(dir + "/nope").status().code(), StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace servebench::verdict
