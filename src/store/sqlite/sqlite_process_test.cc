// SQLite under real processes: a writer SIGKILLed mid-ingest leaves a sound
// database, and two processes ingesting into one file at once lose nothing.
// Children are fork()ed from this single-threaded test and open their own
// connections (a connection must never cross a fork).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "store/sqlite/sqlite_connection.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"

namespace servebench::store::sqlite {
namespace {

using testutil::MakeRecord;
using testutil::TempDir;

// Ingests records first..last-1 into `path` in a child; the child exits 0 when all
// were inserted or already present, 1 (after printing why) otherwise.
pid_t SpawnIngester(const std::string& path, int first, int last) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int code = 0;
  {
    auto store = OpenSqliteStore(path);
    if (!store.ok()) {
      std::fprintf(stderr, "child %d: %s\n", getpid(), store.status().ToString().c_str());
      _exit(1);
    }
    for (int i = first; i < last && code == 0; ++i) {
      auto outcome = (*store)->Ingest(MakeRecord(i));
      if (!outcome.ok() || *outcome == IngestOutcome::kConflict) {
        std::fprintf(stderr, "child %d: record %d: %s\n", getpid(), i,
                     outcome.ok() ? "conflict" : outcome.status().ToString().c_str());
        code = 1;
      }
    }
  }
  _exit(code);
}

int64_t CountRows(const std::string& path) {
  auto db = Connection::Open(path, 5000);
  if (!db.ok()) return -1;
  auto count = (*db)->Prepare("SELECT COUNT(*) FROM records", {}, "count");
  if (!count.ok()) return -1;
  auto row = count->Step();
  if (!row.ok() || !*row) return -1;
  return count->ColumnInt(0).value_or(-1);
}

std::string IntegrityCheck(const std::string& path) {
  auto db = Connection::Open(path, 5000);
  if (!db.ok()) return db.status().ToString();
  auto check = (*db)->Prepare("PRAGMA integrity_check", {}, "integrity check");
  if (!check.ok()) return check.status().ToString();
  std::string result;
  while (true) {
    auto row = check->Step();
    if (!row.ok()) return row.status().ToString();
    if (!*row) break;
    result += check->ColumnText(0);
  }
  return result;
}

int WaitExitCode(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SqliteProcessTest, WriterKilledMidIngestLeavesASoundDatabase) {
  TempDir dir;
  std::string path = dir.File("killed.db");
  ASSERT_TRUE(OpenSqliteStore(path).ok());  // schema exists before the child starts
  pid_t child = SpawnIngester(path, 0, 1'000'000);
  // Let it commit some records, then kill it wherever it is (likely mid-transaction).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (CountRows(path) < 50 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer finished before it was killed";

  EXPECT_EQ(IntegrityCheck(path), "ok");
  int64_t rows = CountRows(path);
  EXPECT_GE(rows, 50);
  // Every committed row is whole, and ingest carries on where the writer stopped.
  auto store = OpenSqliteStore(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto all = (*store)->Query({});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(static_cast<int64_t>(all->size()), rows);
  for (int i = 0; i < rows; ++i) {
    auto outcome = (*store)->Ingest(MakeRecord(i));
    ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
    EXPECT_EQ(*outcome, IngestOutcome::kAlreadyPresent) << "record " << i;
  }
  EXPECT_EQ((*store)->Ingest(MakeRecord(static_cast<int>(rows) + 5)).value(),
            IngestOutcome::kInserted);
}

TEST(SqliteProcessTest, TwoProcessesIngestingIntoOneNewFileLoseNothing) {
  TempDir dir;
  std::string path = dir.File("shared.db");
  // Both start on a file that does not exist yet, so they also race to migrate.
  // Their ranges overlap by 100 records, which each may find already present.
  pid_t a = SpawnIngester(path, 0, 300);
  pid_t b = SpawnIngester(path, 200, 500);
  EXPECT_EQ(WaitExitCode(a), 0);
  EXPECT_EQ(WaitExitCode(b), 0);
  EXPECT_EQ(CountRows(path), 500);
  EXPECT_EQ(IntegrityCheck(path), "ok");
}

}  // namespace
}  // namespace servebench::store::sqlite
