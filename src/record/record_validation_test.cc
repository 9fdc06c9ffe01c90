// What the codec refuses and how it says so (moved here with the validation from
// store/record_columns.cc: the store now checks records with the codec).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "record/record_doc.h"
#include "record/record_json.h"

namespace servebench::record {
namespace {

namespace json = boost::json;

json::object Valid() { return ToJson(ExampleRecord()); }

std::string Problems(const json::object& o) {
  StatusOr<Record> r = FromJson(o);
  EXPECT_FALSE(r.ok());
  if (!r.ok()) {
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  return r.ok() ? "" : r.status().message();
}

TEST(RecordValidationTest, EveryMissingRequiredFieldIsNamedInOneMessage) {
  json::object record = Valid();
  record.erase("record_id");
  record.erase("model");
  record["provenance"].as_object().erase("started_at");
  std::string m = Problems(record);
  EXPECT_NE(m.find("record_id: missing"), std::string::npos) << m;
  EXPECT_NE(m.find("model: missing"), std::string::npos) << m;
  EXPECT_NE(m.find("provenance.started_at: missing"), std::string::npos) << m;
}

TEST(RecordValidationTest, WrongTypesAndValuesSayWhatIsAllowed) {
  json::object record = Valid();
  record["status"] = "great";
  record["concurrency"] = -4;
  record["engine"] = 7;
  record["schema_version"] = kSchemaVersion + 1;
  record["run_id"] = "../etc/passwd";
  record["summary"] = "fast";
  std::string m = Problems(record);
  EXPECT_NE(m.find("status: = \"great\"; one of ok, failed, invalid, blocked, skipped"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("concurrency: is an integer (-4)"), std::string::npos) << m;
  EXPECT_NE(m.find("engine: is an integer (7)"), std::string::npos) << m;
  EXPECT_NE(m.find("schema_version: = " + std::to_string(kSchemaVersion + 1)), std::string::npos)
      << m;
  EXPECT_NE(m.find("run_id: = \"../etc/passwd\""), std::string::npos) << m;
  EXPECT_NE(m.find("summary: is a string"), std::string::npos) << m;
}

TEST(RecordValidationTest, OptionalFieldsMayBeAbsentOrNull) {
  json::object record = Valid();
  for (const char* key :
       {"session_id", "series_id", "hardware", "precision", "failure_class", "build", "summary",
        "evals", "artifacts", "point", "headline", "accuracy", "repetitions"}) {
    record.erase(key);
  }
  record["concurrency"] = nullptr;
  StatusOr<Record> r = FromJson(record);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->concurrency.has_value());
  EXPECT_EQ(r->build.date, "");
  EXPECT_FALSE(r->headline.has_value());
}

TEST(RecordValidationTest, TimesMustBeUtcSoThatTextOrderIsTimeOrder) {
  for (const char* good : {"2026-11-29T20:30:00Z", "2026-11-29T20:30:00.125Z", "2026-11-29"}) {
    json::object record = Valid();
    record["provenance"].as_object()["started_at"] = good;
    EXPECT_TRUE(FromJson(record).ok()) << good;
  }
  for (const char* bad : {"29/11/2026 20:30", "2026-11-29T20:30:00+02:00", "2026-11-29T20:30Z",
                          "2026-11-29T20:30:00.Z", "2026-11-29 20:30:00Z"}) {
    json::object record = Valid();
    record["provenance"].as_object()["started_at"] = bad;
    std::string m = Problems(record);
    EXPECT_NE(m.find("provenance.started_at: = \"" + std::string(bad)), std::string::npos) << m;
  }
  json::object record = Valid();
  record["build"].as_object()["date"] = "Nov 29";
  record["provenance"].as_object()["ended_at"] = "later";
  std::string m = Problems(record);
  EXPECT_NE(m.find("build.date: = \"Nov 29\""), std::string::npos) << m;
  EXPECT_NE(m.find("provenance.ended_at: = \"later\""), std::string::npos) << m;
}

TEST(RecordValidationTest, UnknownFieldsAreRefusedWhereverTheyAre) {
  json::object record = Valid();
  record["build"].as_object()["branch"] = "main";
  record["headline"].as_object()["tok_per_s"] = 3.0;
  std::string m = Problems(record);
  EXPECT_NE(m.find("build.branch: unknown field"), std::string::npos) << m;
  EXPECT_NE(m.find("headline.tok_per_s: unknown field"), std::string::npos) << m;
}

}  // namespace
}  // namespace servebench::record
