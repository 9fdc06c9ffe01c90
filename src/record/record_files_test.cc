// Record files: written atomically, read back, renamed files and non-records.
#include "record/record_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/testing/files.h"
#include "record/record_doc.h"

namespace servebench::record {
namespace {

namespace fs = std::filesystem;

class RecordFilesTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = servebench::testing::FreshTestDir("record_files"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(RecordFilesTest, WrittenRecordReadsBack) {
  Record r = ExampleRecord();
  StatusOr<std::string> path = WriteRecordFile(dir_ + "/out/records", r);
  ASSERT_TRUE(path.ok()) << path.status().message();
  EXPECT_EQ(*path, dir_ + "/out/records/" + r.record_id + ".json");
  StatusOr<Record> back = ReadRecordFile(*path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, r);
}

TEST_F(RecordFilesTest, RenamedFileIsRefused) {
  Record r = ExampleRecord();
  ASSERT_TRUE(WriteRecordFile(dir_, r).ok());
  fs::rename(dir_ + "/" + r.record_id + ".json", dir_ + "/other.json");
  StatusOr<Record> back = ReadRecordFile(dir_ + "/other.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("but the file is named other.json"), std::string::npos)
      << back.status().message();
}

TEST_F(RecordFilesTest, FolderSkipsJsonThatIsNotARecordAndNamesABrokenOne) {
  Record r = ExampleRecord();
  ASSERT_TRUE(WriteRecordFile(dir_ + "/out/records", r).ok());
  fs::create_directories(dir_ + "/out/evals");
  std::ofstream(dir_ + "/out/evals/results.json") << R"({"results": {}})";
  StatusOr<std::vector<Record>> got = ReadRecordFolder(dir_);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ(got->front(), r);

  std::ofstream(dir_ + "/out/records/bad.json") << R"({"record_id": "bad", "schema_version": 2})";
  got = ReadRecordFolder(dir_);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("bad.json"), std::string::npos) << got.status().message();
  EXPECT_NE(got.status().message().find("run_id: missing"), std::string::npos);
}

TEST_F(RecordFilesTest, MissingFolderIsNotFound) {
  StatusOr<std::vector<Record>> got = ReadRecordFolder(dir_ + "/nope");
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace servebench::record
