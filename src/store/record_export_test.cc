#include "store/record_export.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "store/store_test_util.h"

namespace servebench::store {
namespace {

TEST(RecordExportTest, CsvHasAHeaderAndOneLinePerRecordWithNestedFields) {
  boost::json::object r = testutil::MakeRecord(1);
  r["failure_reason"] = "said \"no\", twice";
  std::string csv = RecordsToCsv({r, testutil::MakeRecord(2)});
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = csv.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(csv.substr(start, nl - start));
  }
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[0].starts_with("record_id,run_id,point_id,")) << lines[0];
  EXPECT_NE(lines[0].find(",summary.output_throughput,"), std::string::npos);
  EXPECT_TRUE(lines[1].starts_with("rec-1,run-1,point-1,session-1,series-1,quickstart-sim,sim,,"))
      << lines[1];
  EXPECT_NE(lines[1].find(",\"said \"\"no\"\", twice\","), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(",2026-11-29T20:01:00Z,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(",1235.5,"), std::string::npos) << lines[1];
}

TEST(RecordExportTest, JsonExportParsesBackToTheRecords) {
  std::vector<boost::json::object> records = {testutil::MakeRecord(1), testutil::MakeRecord(2)};
  boost::json::value parsed = boost::json::parse(RecordsToJson(records));
  ASSERT_TRUE(parsed.is_array());
  ASSERT_EQ(parsed.get_array().size(), 2u);
  EXPECT_EQ(parsed.get_array()[1].get_object(), records[1]);
  EXPECT_EQ(RecordsToJson({}), "[]\n");
}

TEST(RecordExportTest, PrettyJsonIndentsAndRoundTrips) {
  boost::json::value v = boost::json::parse(R"({"a":[1,{"b":null}],"c":{},"d":"x"})");
  std::string pretty = PrettyJson(v);
  EXPECT_EQ(pretty,
            "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": "
            "\"x\"\n}\n");
  EXPECT_EQ(boost::json::parse(pretty), v);
}

TEST(RecordExportTest, FieldTextFollowsDottedPaths) {
  boost::json::object r = testutil::MakeRecord(1);
  EXPECT_EQ(FieldText(r, "build.commit"), "abc");
  EXPECT_EQ(FieldText(r, "concurrency"), "2");
  EXPECT_EQ(FieldText(r, "evals"), "");
  EXPECT_EQ(FieldText(r, "evals.gsm8k"), "");
  EXPECT_EQ(FieldText(r, "engine.sub"), "");
  EXPECT_EQ(FieldText(r, "nope"), "");
}

}  // namespace
}  // namespace servebench::store
