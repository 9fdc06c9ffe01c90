#include "store/record_columns.h"

#include <gtest/gtest.h>

#include "store/store_test_util.h"

namespace servebench::store {
namespace {

using testutil::MakeRecord;

TEST(RecordColumnsTest, ValidRecordYieldsItsIndexedColumns) {
  auto columns = ExtractRecordColumns(MakeRecord(3));
  ASSERT_TRUE(columns.ok()) << columns.status().ToString();
  EXPECT_EQ(columns->record_id, "rec-3");
  EXPECT_EQ(columns->point_id, "point-3");
  EXPECT_EQ(columns->series_id, "series-3");
  EXPECT_EQ(columns->hardware, "sim-h100");
  EXPECT_EQ(columns->precision, "fp8");
  EXPECT_EQ(columns->concurrency, 8);
  EXPECT_EQ(columns->build_date, "2026-11-29");
  EXPECT_EQ(columns->build_commit, "abc");
  EXPECT_EQ(columns->build_image, "sim:1");
  EXPECT_EQ(columns->started_at, "2026-11-29T20:03:00Z");
  EXPECT_EQ(columns->status, "ok");
}

TEST(RecordColumnsTest, EveryMissingRequiredFieldIsNamedInOneMessage) {
  boost::json::object record = MakeRecord(1);
  record.erase("record_id");
  record.erase("model");
  record["provenance"].as_object().erase("started_at");
  auto columns = ExtractRecordColumns(record);
  ASSERT_FALSE(columns.ok());
  EXPECT_EQ(columns.status().code(), StatusCode::kInvalidArgument);
  std::string m = columns.status().message();
  EXPECT_NE(m.find("record_id: missing"), std::string::npos) << m;
  EXPECT_NE(m.find("model: missing"), std::string::npos) << m;
  EXPECT_NE(m.find("provenance.started_at: missing"), std::string::npos) << m;
}

TEST(RecordColumnsTest, WrongTypesAndValuesSayWhatIsAllowed) {
  boost::json::object record = MakeRecord(1);
  record["status"] = "great";
  record["concurrency"] = -4;
  record["engine"] = 7;
  record["schema_version"] = 2;
  record["run_id"] = "../etc/passwd";
  record["summary"] = "fast";
  auto columns = ExtractRecordColumns(record);
  ASSERT_FALSE(columns.ok());
  std::string m = columns.status().message();
  EXPECT_NE(m.find("status: = \"great\"; one of ok, failed, invalid, blocked, skipped"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("concurrency: = -4"), std::string::npos) << m;
  EXPECT_NE(m.find("engine: is an integer (7)"), std::string::npos) << m;
  EXPECT_NE(m.find("schema_version: = 2"), std::string::npos) << m;
  EXPECT_NE(m.find("run_id: = \"../etc/passwd\""), std::string::npos) << m;
  EXPECT_NE(m.find("summary: is a string"), std::string::npos) << m;
}

TEST(RecordColumnsTest, OptionalFieldsMayBeAbsentOrNull) {
  boost::json::object record = MakeRecord(1);
  for (const char* key : {"session_id", "series_id", "hardware", "precision", "failure_class",
                          "build", "summary", "evals", "artifacts", "point"}) {
    record.erase(key);
  }
  record["concurrency"] = nullptr;
  auto columns = ExtractRecordColumns(record);
  ASSERT_TRUE(columns.ok()) << columns.status().ToString();
  EXPECT_FALSE(columns->concurrency.has_value());
  EXPECT_EQ(columns->build_date, "");
}

TEST(RecordColumnsTest, TimesMustBeUtcSoThatTextOrderIsTimeOrder) {
  for (const char* good : {"2026-11-29T20:30:00Z", "2026-11-29T20:30:00.125Z", "2026-11-29"}) {
    boost::json::object record = MakeRecord(1);
    record["provenance"].as_object()["started_at"] = good;
    EXPECT_TRUE(ExtractRecordColumns(record).ok()) << good;
  }
  for (const char* bad : {"29/11/2026 20:30", "2026-11-29T20:30:00+02:00", "2026-11-29T20:30Z",
                          "2026-11-29T20:30:00.Z", "2026-11-29 20:30:00Z"}) {
    boost::json::object record = MakeRecord(1);
    record["provenance"].as_object()["started_at"] = bad;
    auto columns = ExtractRecordColumns(record);
    ASSERT_FALSE(columns.ok()) << bad;
    EXPECT_NE(columns.status().message().find("provenance.started_at: = \"" + std::string(bad)),
              std::string::npos)
        << columns.status().message();
  }
  boost::json::object record = MakeRecord(1);
  record["build"].as_object()["date"] = "Nov 29";
  record["provenance"].as_object()["ended_at"] = "later";
  auto columns = ExtractRecordColumns(record);
  ASSERT_FALSE(columns.ok());
  EXPECT_NE(columns.status().message().find("build.date: = \"Nov 29\""), std::string::npos);
  EXPECT_NE(columns.status().message().find("provenance.ended_at: = \"later\""), std::string::npos);
}

TEST(RecordColumnsTest, JsonEquivalentComparesNumbersByValueAndKeysUnordered) {
  EXPECT_TRUE(JsonEquivalent(boost::json::parse(R"({"a":2.0,"b":[1,{"c":3}]})"),
                             boost::json::parse(R"({"b":[1,{"c":3.0}],"a":2})")));
  EXPECT_FALSE(
      JsonEquivalent(boost::json::parse(R"({"a":2.5})"), boost::json::parse(R"({"a":2})")));
  EXPECT_FALSE(
      JsonEquivalent(boost::json::parse(R"({"a":1})"), boost::json::parse(R"({"a":1,"b":1})")));
  EXPECT_FALSE(JsonEquivalent(boost::json::parse(R"(["1"])"), boost::json::parse(R"([1])")));
}

}  // namespace
}  // namespace servebench::store
