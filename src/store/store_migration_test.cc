// A store written by servebench 0.1.0 (schema-1 records; testdata of record/) opens,
// reads as current Records equal to that release's record files, and ingesting
// those files again changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "record/record_files.h"
#include "store/record_files.h"
#include "store/store.h"
#include "store/store_test_util.h"

namespace servebench::store {
namespace {

const std::string kFixture =
    std::string(SERVEBENCH_SOURCE_DIR) + "/src/record/testdata/release-0.1.0";

class StoreMigrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = dir_.File("store.db");
    std::filesystem::copy_file(kFixture + "/store.db", db_);
  }
  testutil::TempDir dir_;
  std::string db_;
};

TEST_F(StoreMigrationTest, RecordsOfTheFirstReleaseReadAsTheirFilesDo) {
  auto store = Open(db_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->SchemaVersion().value(), 1) << "the store's own schema did not change";
  auto stored = (*store)->Query({});
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  auto files = record::ReadRecordFolder(kFixture + "/records");
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(stored->size(), 35u);
  ASSERT_EQ(files->size(), stored->size());
  auto by_id = [](const record::Record& a, const record::Record& b) {
    return a.record_id < b.record_id;
  };
  std::sort(stored->begin(), stored->end(), by_id);
  std::sort(files->begin(), files->end(), by_id);
  for (size_t i = 0; i < stored->size(); ++i) {
    EXPECT_EQ((*stored)[i], (*files)[i]) << (*stored)[i].record_id;
  }
}

TEST_F(StoreMigrationTest, IngestingTheFirstReleasesFilesAgainChangesNothing) {
  auto store = Open(db_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto files = FindRecordFiles(kFixture);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  auto outcomes = IngestRecordFiles(**store, *files);
  ASSERT_TRUE(outcomes.ok()) << outcomes.status().ToString();
  ASSERT_EQ(outcomes->size(), 35u);
  for (const FileOutcome& o : *outcomes) {
    ASSERT_TRUE(o.outcome.has_value()) << o.path << ": " << o.error.message();
    EXPECT_EQ(*o.outcome, IngestOutcome::kAlreadyPresent) << o.path;
  }
  // A record of this release goes in beside them.
  EXPECT_EQ((*store)->Ingest(testutil::MakeRecord(1)).value(), IngestOutcome::kInserted);
  EXPECT_EQ((*store)->Query({}).value().size(), 36u);
}

}  // namespace
}  // namespace servebench::store
