#include "store/record_files.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "record/record_json.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"

namespace servebench::store {
namespace {

using testutil::MakeRecord;
using testutil::TempDir;

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

void WriteRecord(const std::string& dir, const boost::json::object& record) {
  Write(dir + "/records/" + std::string(record.at("record_id").as_string()) + ".json",
        boost::json::serialize(record));
}

void WriteRecord(const std::string& dir, const record::Record& record) {
  WriteRecord(dir, record::ToJson(record));
}

TEST(RecordFilesTest, FindsRecordsFoldersAtAnyDepthAndSkipsTemporaries) {
  TempDir dir;
  WriteRecord(dir.File("a"), MakeRecord(1));
  WriteRecord(dir.File("b/c"), MakeRecord(2));
  Write(dir.File("a/records/rec-3.json.tmp.123"), "{");
  Write(dir.File("a/logs/engine.json"), "{}");
  Write(dir.File("a/records/notes.txt"), "x");
  auto files = FindRecordFiles(dir.path());
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(*files, (std::vector<std::string>{dir.File("a/records/rec-1.json"),
                                              dir.File("b/c/records/rec-2.json")}));
  // The records folder itself works too.
  EXPECT_EQ(FindRecordFiles(dir.File("a/records")).value().size(), 1u);
}

TEST(RecordFilesTest, AMissingFolderIsNotFound) {
  auto files = FindRecordFiles("/nonexistent-servebench-out");
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), StatusCode::kNotFound);
}

TEST(RecordFilesTest, BadFilesAreReportedByNameAndFieldWhileGoodOnesAreIngested) {
  TempDir dir;
  std::string out = dir.File("out");
  WriteRecord(out, MakeRecord(1));
  WriteRecord(out, MakeRecord(2));
  Write(out + "/records/corrupt.json", R"({"record_id": "corrupt", "run_)");
  boost::json::object missing = record::ToJson(MakeRecord(3));
  missing.erase("engine");
  WriteRecord(out, missing);
  Write(out + "/records/renamed.json", record::ToJsonText(MakeRecord(4)));

  auto store = sqlite::OpenSqliteStore(dir.File("s.db"));
  ASSERT_TRUE(store.ok());
  auto files = FindRecordFiles(out);
  ASSERT_TRUE(files.ok());
  auto outcomes = IngestRecordFiles(**store, *files);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status().ToString();
  ASSERT_EQ(outcomes->size(), 5u);
  std::map<std::string, const FileOutcome*> by_name;
  for (const auto& o : *outcomes) by_name[std::filesystem::path(o.path).filename()] = &o;

  EXPECT_EQ(by_name["rec-1.json"]->outcome, IngestOutcome::kInserted);
  EXPECT_EQ(by_name["rec-2.json"]->outcome, IngestOutcome::kInserted);
  const std::string& corrupt = by_name["corrupt.json"]->error.message();
  EXPECT_NE(corrupt.find(out + "/records/corrupt.json: not valid JSON"), std::string::npos)
      << corrupt;
  const std::string& field = by_name["rec-3.json"]->error.message();
  EXPECT_NE(field.find(out + "/records/rec-3.json: engine: missing"), std::string::npos) << field;
  const std::string& renamed = by_name["renamed.json"]->error.message();
  EXPECT_NE(renamed.find("record_id is \"rec-4\" but the file is named renamed.json"),
            std::string::npos)
      << renamed;

  // A second pass inserts nothing: the store is unchanged.
  auto again = IngestRecordFiles(**store, *files);
  ASSERT_TRUE(again.ok());
  int already = 0;
  for (const auto& o : *again) already += o.outcome == IngestOutcome::kAlreadyPresent;
  EXPECT_EQ(already, 2);
  EXPECT_EQ((*store)->Query({}).value().size(), 2u);
}

}  // namespace
}  // namespace servebench::store
