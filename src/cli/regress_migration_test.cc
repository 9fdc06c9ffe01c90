// `servebench regress` over history written by the release before the typed Record
// (src/record/testdata/release-0.1.0: schema-1 records, a store, and that release's
// own verdicts) gives that release's verdicts — on its store, and on a history that
// spans the change: the first four nights as it wrote them, the last three as this
// release writes them (record files, and rows ingested into its store). Only the
// exit code differs, by design: a confirmed regression is 4 now, 1 then.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/atomic_file.h"
#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "record/exact_json.h"
#include "record/record_files.h"

namespace servebench {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using testing::RunServebench;

const std::string kFixture =
    std::string(SERVEBENCH_SOURCE_DIR) + "/src/record/testdata/release-0.1.0";
const char* kJudgedNights[] = {"2026-11-05", "2026-11-06", "2026-11-07"};

json::object ParseObject(const std::string& text) {
  StatusOr<json::value> v = record::ParseJsonExactly(text);
  EXPECT_TRUE(v.ok() && v->is_object()) << text.substr(0, 500);
  return v.ok() && v->is_object() ? v->get_object() : json::object{};
}

// True when every word of `old_label` appears in `new_label` in the same order.
bool WordsInOrder(const std::string& old_label, const std::string& new_label) {
  std::istringstream olds(old_label), news(new_label);
  std::string want, got;
  while (olds >> want) {
    bool found = false;
    while (!found && news >> got) found = got == want;
    if (!found) return false;
  }
  return true;
}

// The old release's report as what decides: per series, its status and note, and per
// metric its outcome, rule and numbers.
void ExpectSameVerdicts(const json::object& old_report, const json::object& new_report) {
  EXPECT_EQ(new_report.at("date"), old_report.at("date"));
  EXPECT_EQ(new_report.at("counts"), old_report.at("counts"));
  int old_exit = static_cast<int>(old_report.at("exit_code").to_number<int64_t>());
  EXPECT_EQ(new_report.at("exit_code").to_number<int64_t>(), old_exit == 1 ? 4 : old_exit);
  std::map<std::string, const json::object*> old_by_series;
  for (const json::value& v : old_report.at("verdicts").as_array()) {
    const json::object& o = v.as_object();
    old_by_series[std::string(o.at("kind").as_string()) + ":" +
                  std::string(o.at("series_id").as_string())] = &o;
  }
  const json::array& verdicts = new_report.at("verdicts").as_array();
  ASSERT_EQ(verdicts.size(), old_by_series.size());
  for (const json::value& v : verdicts) {
    const json::object& now = v.as_object();
    std::string key = std::string(now.at("kind").as_string()) + ":" +
                      std::string(now.at("series_id").as_string());
    ASSERT_EQ(old_by_series.count(key), 1u) << key;
    const json::object& then = *old_by_series[key];
    SCOPED_TRACE(key + " " + std::string(then.at("label").as_string()));
    EXPECT_EQ(now.at("status"), then.at("status"));
    EXPECT_EQ(now.at("note"), then.at("note"));
    // The label names the configuration now (record::ConfigLabel, issue 13): every
    // word of the old label is still there, in order, and the series is the same.
    EXPECT_TRUE(WordsInOrder(std::string(then.at("label").as_string()),
                             std::string(now.at("label").as_string())))
        << now.at("label") << " vs " << then.at("label");
    EXPECT_EQ(now.at("build"), then.at("build"));
    const json::array& metrics = now.at("metrics").as_array();
    const json::array& old_metrics = then.at("metrics").as_array();
    ASSERT_EQ(metrics.size(), old_metrics.size());
    for (size_t i = 0; i < metrics.size(); ++i) {
      const json::object& m = metrics[i].as_object();
      const json::object& om = old_metrics[i].as_object();
      SCOPED_TRACE(std::string(om.at("metric").as_string()));
      for (const char* k : {"metric", "counted", "outcome", "suspect", "rule", "baseline_nights"}) {
        EXPECT_EQ(m.at(k), om.at(k)) << k;
      }
      for (const char* k : {"value", "baseline", "change_rel", "noise_rel", "threshold_rel"}) {
        double a = m.at(k).to_number<double>(), b = om.at(k).to_number<double>();
        EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::abs(b))) << k;
      }
    }
  }
}

class RegressMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = servebench::testing::FreshTestDir("migrate"); }
  void TearDown() override { fs::remove_all(dir_); }

  json::object OldVerdicts(const std::string& night) {
    StatusOr<std::string> text = ReadFile(kFixture + "/regress-" + night + ".json");
    EXPECT_TRUE(text.ok()) << text.status().message();
    return ParseObject(text.ok() ? *text : "");
  }
  json::object NewVerdicts(const std::string& where, const std::string& night) {
    testing::ShellResult r =
        RunServebench("regress " + where + " --format json --date " + night + " 2>/dev/null");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 4) << r.output.substr(0, 2000);
    return ParseObject(r.output);
  }

  // The first four nights as the old release wrote them, the last three rewritten by
  // this release's writer.
  std::string SpanningRecords() {
    std::string out = dir_ + "/spanning/records";
    StatusOr<std::vector<record::Record>> all = record::ReadRecordFolder(kFixture + "/records");
    EXPECT_TRUE(all.ok()) << all.status().message();
    for (const record::Record& r : *all) {
      std::string name = r.record_id + ".json";
      if (r.build.date < "2026-11-05") {
        fs::create_directories(out);
        fs::copy_file(kFixture + "/records/" + name, out + "/" + name);
      } else {
        EXPECT_TRUE(record::WriteRecordFile(dir_ + "/new/records", r).ok());
        EXPECT_TRUE(record::WriteRecordFile(out, r).ok());
      }
    }
    return out;
  }

  std::string dir_;
};

TEST_F(RegressMigrationTest, StoreOfTheFirstReleaseGivesItsVerdicts) {
  std::string db = dir_ + "/store.db";
  fs::copy_file(kFixture + "/store.db", db);
  for (const char* night : kJudgedNights) {
    SCOPED_TRACE(night);
    ExpectSameVerdicts(OldVerdicts(night), NewVerdicts("--db " + db, night));
  }
}

TEST_F(RegressMigrationTest, HistorySpanningTheChangeGivesTheSameVerdicts) {
  std::string records = SpanningRecords();
  // Nights 5-7 really are in the current layout now.
  for (const auto& f : fs::directory_iterator(dir_ + "/new/records")) {
    StatusOr<std::string> text = ReadFile(f.path().string());
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(ParseObject(*text).at("schema_version").as_int64(), 2);
  }
  for (const char* night : kJudgedNights) {
    SCOPED_TRACE(std::string("files ") + night);
    ExpectSameVerdicts(OldVerdicts(night), NewVerdicts("--records " + records, night));
  }

  // The same in a store: the old release's rows of nights 1-4, and this release's
  // records of nights 5-7 ingested beside them.
  std::string db = dir_ + "/store.db";
  fs::copy_file(kFixture + "/store.db", db);
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(handle, "DELETE FROM records WHERE build_date >= '2026-11-05'", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(handle), 15);
  sqlite3_close(handle);
  testing::ShellResult ingest = RunServebench("ingest -q --db " + db + " " + dir_ + "/new");
  ASSERT_EQ(ingest.exit_code, 0) << ingest.output;
  EXPECT_NE(ingest.output.find("15 inserted"), std::string::npos) << ingest.output;
  for (const char* night : kJudgedNights) {
    SCOPED_TRACE(std::string("store ") + night);
    ExpectSameVerdicts(OldVerdicts(night), NewVerdicts("--db " + db, night));
  }
}

}  // namespace
}  // namespace servebench
