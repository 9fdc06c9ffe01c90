#include "store/sqlite/sqlite_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>

#include "store/sqlite/sqlite_connection.h"
#include "store/store_contract.h"
#include "store/store_test_util.h"

namespace servebench::store::sqlite {
namespace {

using store::testutil::MakeRecord;
using store::testutil::TempDir;

store::testutil::Backend SqliteBackend() {
  // One folder for the whole binary; each test gets a new file in it.
  static TempDir* dir = new TempDir();
  static std::atomic<int> counter{0};
  return {"sqlite", [] { return dir->File("t" + std::to_string(counter++) + ".db"); },
          [](const std::string& path, const std::vector<Migration>* migrations) {
            SqliteOptions options;
            options.migrations = migrations;
            return OpenSqliteStore(path, options);
          }};
}

using store::testutil::StoreContractTest;
INSTANTIATE_TEST_SUITE_P(Sqlite, StoreContractTest, ::testing::Values(SqliteBackend()),
                         [](const auto& info) { return info.param.name; });

TEST(SqliteStoreTest, DatabaseUsesWalJournal) {
  TempDir dir;
  ASSERT_TRUE(OpenSqliteStore(dir.File("s.db")).ok());
  auto db = Connection::Open(dir.File("s.db"), 1000);
  ASSERT_TRUE(db.ok());
  auto mode = (*db)->Prepare("PRAGMA journal_mode", {}, "read journal mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(mode->Step().value());
  EXPECT_EQ(mode->ColumnText(0), "wal");
}

TEST(SqliteStoreTest, LockedDatabaseGivesUnavailableAfterTheBusyTimeout) {
  TempDir dir;
  std::string path = dir.File("locked.db");
  SqliteOptions options;
  options.busy_timeout_ms = 100;
  auto store = OpenSqliteStore(path, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto holder = Connection::Open(path, 100);
  ASSERT_TRUE(holder.ok());
  ASSERT_TRUE((*holder)->Exec("BEGIN IMMEDIATE", "hold the write lock").ok());
  auto outcome = (*store)->Ingest(MakeRecord(1));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(outcome.status().message().find("locked by another process"), std::string::npos)
      << outcome.status().message();
  EXPECT_NE(outcome.status().message().find(path), std::string::npos);
  ASSERT_TRUE((*holder)->Exec("COMMIT", "release").ok());
  EXPECT_TRUE((*store)->Ingest(MakeRecord(1)).ok());  // works once the lock is gone
}

TEST(SqliteStoreTest, FullDiskGivesDataLoss) {
  // max_page_count makes SQLite hit SQLITE_FULL exactly as a full disk does.
  TempDir dir;
  auto db = Connection::Open(dir.File("full.db"), 100);
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t (x TEXT); PRAGMA max_page_count = 3", "setup").ok());
  Status status;
  for (int i = 0; i < 100 && status.ok(); ++i) {
    status = (*db)->Exec("INSERT INTO t VALUES (hex(randomblob(2000)))", "insert");
  }
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kDataLoss);
  EXPECT_NE(status.message().find("disk is full"), std::string::npos) << status.message();
}

TEST(SqliteStoreTest, AFileThatIsNotADatabaseIsRefusedClearly) {
  TempDir dir;
  std::string path = dir.File("notes.txt");
  std::ofstream(path) << std::string(8192, 'x');
  auto store = OpenSqliteStore(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(store.status().message().find("not an SQLite database"), std::string::npos)
      << store.status().message();
}

TEST(SqliteStoreTest, AMissingFolderIsUnavailableAndNamesThePath) {
  auto store = OpenSqliteStore("/nonexistent-servebench-dir/sub/x.db");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(store.status().message().find("/nonexistent-servebench-dir/sub/x.db"),
            std::string::npos);
}

TEST(SqliteStoreTest, OpenDispatchesOnTheUrl) {
  TempDir dir;
  auto store = Open(dir.File("plain.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->Describe(), "sqlite:" + dir.File("plain.db"));
  EXPECT_TRUE(IsPostgresUrl("postgresql://u@h/db"));
  EXPECT_TRUE(IsPostgresUrl("postgres://u@h/db"));
  EXPECT_FALSE(IsPostgresUrl("servebench.db"));
}

}  // namespace
}  // namespace servebench::store::sqlite
