// The codec: round trips, field-path errors, schema versions and the schema-1
// migration.
#include "record/record_json.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "record/record_doc.h"

namespace servebench::record {
namespace {

namespace json = boost::json;

// The fields a schema-1 record of the first release had, as run/record.cc wrote them.
json::object SchemaOneRecord() {
  return json::parse(R"({
    "schema_version": 1, "record_id": "r1", "run_id": "run-1", "point_id": "p1",
    "session_id": "s1", "series_id": "series-1", "recipe": "quick", "source_file": "q.yaml",
    "source_format": "native", "engine": "sim", "image": "", "model": "llama-3.1-8b",
    "precision": "bf16", "hardware": "h200", "runner": "h200", "isl": 1024, "osl": 128,
    "concurrency": 8, "tp": 4, "ep": 1, "dp_attn": false, "spec_method": "none",
    "num_gpus": 4, "simulated": true, "status": "ok", "failure_class": "",
    "failure_reason": "", "interrupted": false, "blocked": false, "blocked_reason": "",
    "blocked_link": "", "unblocked": false,
    "build": {"image": "sim:1", "commit": "c1", "date": "2026-11-29"},
    "provenance": {"servebench_version": "0.1.0", "git_revision": "abc", "host": "h",
                   "engine_version": "", "started_at": "2026-11-29T20:30:00Z",
                   "ended_at": "2026-11-29T20:31:00Z"},
    "point": null,
    "summary": {"completed": 80, "failed": 0, "request_throughput": 0.8,
                "output_throughput": 400.0, "total_token_throughput": 1200.0,
                "median_ttft_ms": 50.0, "median_tpot_ms": 20.0, "p99_tpot_ms": 25.0,
                "servebench": {"repetitions": [{"output_throughput": 390.0,
                                                "total_token_throughput": 1190.0},
                                               {"output_throughput": 410.0,
                                                "total_token_throughput": 1210.0}]}},
    "evals": {"gsm8k": {"results": {"gsm8k": {"exact_match,flexible-extract": 0.86}},
                        "n-samples": {"gsm8k": {"effective": 200}}},
              "floor_gate": {"verdict": "pass"}},
    "artifacts": {"engine_log": "out/logs/a.log", "requests": "out/requests/p.jsonl"}
  })")
      .as_object();
}

TEST(RecordJsonTest, EveryFieldRoundTrips) {
  Record r = ExampleRecord();
  r.failure_class = failure_class::kEvalBelowThreshold;
  r.invalid_reasons = {"client_saturated"};
  r.repetitions = {*r.headline, *r.headline};
  r.deployment.prefill_gpus = 8;
  r.deployment.decode_gpus = 16;
  r.accuracy.front().items = {{"0", true}, {"1", false}};
  StatusOr<Record> back = FromJson(ToJson(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, r);
  StatusOr<Record> from_text = FromJsonText(ToJsonText(r));
  ASSERT_TRUE(from_text.ok()) << from_text.status().message();
  EXPECT_EQ(*from_text, r);
}

TEST(RecordJsonTest, WritesTheCurrentSchemaVersionFirst) {
  json::object o = ToJson(ExampleRecord());
  EXPECT_EQ(o.begin()->key(), "schema_version");
  EXPECT_EQ(o.at("schema_version").as_int64(), kSchemaVersion);
}

TEST(RecordJsonTest, EveryProblemIsReportedWithItsFieldPath) {
  json::object o = ToJson(ExampleRecord());
  o.erase("record_id");
  o["status"] = "great";
  o["failure_class"] = "engine-died";
  o["concurrency"] = -2;
  o["provenance"].as_object()["started_at"] = "29/11/2026";
  o["headline"].as_object()["tput_per_gpu"] = "fast";
  o["accuracy"].as_array()[0].as_object().erase("value");
  o["tput"] = 3;
  StatusOr<Record> r = FromJson(o);
  ASSERT_FALSE(r.ok());
  std::string m = r.status().message();
  for (const char* expected : {"record_id: missing; a non-empty string of [A-Za-z0-9._-]",
                               "status: = \"great\"; one of ok, failed, invalid, blocked, skipped",
                               "failure_class: = \"engine-died\"; \"\" or <domain>.<name>",
                               "concurrency: is an integer (-2); a non-negative integer or null",
                               "provenance.started_at: = \"29/11/2026\"; a UTC date",
                               "headline.tput_per_gpu: is a string (\"fast\"); a number or null",
                               "accuracy[0].value: missing; a number", "tput: unknown field"}) {
    EXPECT_NE(m.find(expected), std::string::npos) << expected << "\nin: " << m;
  }
}

TEST(RecordJsonTest, NewerSchemaVersionIsRefused) {
  json::object o = ToJson(ExampleRecord());
  o["schema_version"] = kSchemaVersion + 1;
  StatusOr<Record> r = FromJson(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("records from a newer servebench need a newer servebench"),
            std::string::npos)
      << r.status().message();
}

TEST(RecordJsonTest, SchemaOneRecordGetsItsHeadlineFromTheSummary) {
  StatusOr<Record> r = FromJson(SchemaOneRecord());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->headline.has_value());
  EXPECT_DOUBLE_EQ(*r->headline->tput_per_gpu, 300) << "total tokens / num_gpus 4";
  EXPECT_DOUBLE_EQ(*r->headline->output_tput_per_gpu, 100);
  EXPECT_DOUBLE_EQ(*r->headline->median_intvty, 50);
  ASSERT_EQ(r->repetitions.size(), 2u);
  EXPECT_DOUBLE_EQ(*r->repetitions[0].tput_per_gpu, 297.5);
  ASSERT_EQ(r->accuracy.size(), 1u);
  EXPECT_EQ(r->accuracy[0].task, "gsm8k");
  EXPECT_DOUBLE_EQ(r->accuracy[0].value, 0.86);
  EXPECT_EQ(r->accuracy[0].n, 200);
  EXPECT_EQ(r->deployment.pp, 1);
  // Read once, written in the current schema, read again: the same record.
  StatusOr<Record> again = FromJson(ToJson(*r));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, *r);
}

TEST(RecordJsonTest, SchemaOneRecordWithoutGpuCountDividesByTp) {
  json::object o = SchemaOneRecord();
  o.erase("num_gpus");
  StatusOr<Record> r = FromJson(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->deployment.num_gpus, 4);
  EXPECT_DOUBLE_EQ(*r->headline->tput_per_gpu, 300);
}

TEST(RecordJsonTest, FieldsOfALaterSchemaAreUnknownInAnEarlierOne) {
  json::object o = SchemaOneRecord();
  o["headline"] = nullptr;
  StatusOr<Record> r = FromJson(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("headline: unknown field; not part of schema version 1"),
            std::string::npos)
      << r.status().message();
}

TEST(RecordJsonTest, MinimalRecordNeedsOnlyTheRequiredFields) {
  json::object o{
      {"schema_version", 2}, {"record_id", "r"},    {"run_id", "x"},
      {"point_id", "p"},     {"recipe", "q"},       {"engine", "sim"},
      {"model", "m"},        {"status", "skipped"}, {"provenance", {{"started_at", "2026-11-29"}}}};
  StatusOr<Record> r = FromJson(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, RecordStatus::kSkipped);
  EXPECT_FALSE(r->headline.has_value());
  EXPECT_EQ(r->Night(), "2026-11-29");
}

TEST(RecordJsonTest, TextThatIsNotARecordSaysSo) {
  EXPECT_NE(FromJsonText("{").status().message().find("not valid JSON"), std::string::npos);
  EXPECT_NE(FromJsonText("[1]").status().message().find("not an object"), std::string::npos);
}

}  // namespace
}  // namespace servebench::record
