// The store against a real PostgreSQL server. The CTest fixture (CMakeLists.txt)
// starts one with scripts/pg-test-server.sh and passes its URL in
// SERVEBENCH_TEST_PG_URL; without it every test here fails (never skips), saying so.
#include "store/postgres/postgres_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "record/record_json.h"
#include "store/postgres/pg_connection.h"
#include "store/store_contract.h"
#include "store/store_test_util.h"

namespace servebench::store::postgres {
namespace {

using testutil::MakeRecord;
using testutil::StoreContractTest;
using testutil::TempDir;

// The maintenance database URL, "postgresql://postgres@/postgres?host=DIR".
std::string ServerUrl() {
  const char* url = std::getenv("SERVEBENCH_TEST_PG_URL");
  return url != nullptr ? url : "";
}

// Creates a new empty database and returns its URL; fails the test if it cannot.
std::string NewDatabase() {
  static std::atomic<int> counter{0};
  std::string server = ServerUrl();
  if (server.empty()) {
    ADD_FAILURE() << "SERVEBENCH_TEST_PG_URL is not set: run this test through ctest, whose "
                     "fixture store_pg_server_start starts a PostgreSQL server "
                     "(scripts/pg-test-server.sh)";
    return "postgresql://postgres@/unset?host=/nonexistent";
  }
  std::string name = "sbtest_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
  auto admin = Connection::Open(server, 10);
  if (!admin.ok()) {
    ADD_FAILURE() << "cannot reach the test PostgreSQL server: " << admin.status().ToString();
    return server;
  }
  auto created = (*admin)->Exec("CREATE DATABASE " + name, {}, "create a test database");
  EXPECT_TRUE(created.ok()) << created.status().ToString();
  std::string url = server;
  size_t at = url.find("/postgres?");
  EXPECT_NE(at, std::string::npos) << "unexpected SERVEBENCH_TEST_PG_URL shape: " << server;
  if (at != std::string::npos) url.replace(at, 10, "/" + name + "?");
  return url;
}

testutil::Backend PostgresBackend() {
  return {"postgres", NewDatabase,
          [](const std::string& url, const std::vector<Migration>* migrations) {
            PostgresOptions options;
            options.migrations = migrations;
            return OpenPostgresStore(url, options);
          }};
}

INSTANTIATE_TEST_SUITE_P(Postgres, StoreContractTest, ::testing::Values(PostgresBackend()),
                         [](const auto& info) { return info.param.name; });

TEST(PostgresStoreTest, TheTestServerIsReachable) {
  ASSERT_FALSE(ServerUrl().empty()) << "SERVEBENCH_TEST_PG_URL is not set (run through ctest)";
  auto admin = Connection::Open(ServerUrl(), 10);
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
}

TEST(PostgresStoreTest, RecordIsQueryableAsJsonbInSql) {
  std::string url = NewDatabase();
  auto store = Open(url);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Ingest(MakeRecord(3)).ok());
  auto db = Connection::Open(url, 10);
  ASSERT_TRUE(db.ok());
  auto result = (*db)->Exec(
      "SELECT record_json->'headline'->>'output_throughput', concurrency FROM records", {}, "read");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->rows(), 1);
  EXPECT_EQ(result->Text(0, 0), "1237.5");
  EXPECT_EQ(result->Text(0, 1), "8");
}

TEST(PostgresStoreTest, ManyConnectionsOpeningANewDatabaseMigrateItOnce) {
  std::string url = NewDatabase();
  std::array<Status, 4> results;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      auto store = Open(url);
      results[i] =
          store.ok() ? (*store)->Ingest(MakeRecord(static_cast<int>(i))).status() : store.status();
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_TRUE(r.ok()) << r.ToString();
  auto store = Open(url);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->SchemaVersion().value(), Migrations().back().version);
  EXPECT_EQ((*store)->Query({}).value().size(), 4u);
}

TEST(PostgresStoreTest, IngestCarriesOnAfterTheServerDropsTheConnection) {
  std::string url = NewDatabase();
  auto store = Open(url);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Ingest(MakeRecord(1)).ok());
  // What a server restart or an administrator does to the store's backend.
  auto admin = Connection::Open(ServerUrl(), 10);
  ASSERT_TRUE(admin.ok());
  std::string db_name = url.substr(url.find("@/") + 2, url.find('?') - url.find("@/") - 2);
  auto killed = (*admin)->Exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE datname = $1 AND application_name = 'servebench' AND pid <> pg_backend_pid()",
      {db_name}, "terminate the store's backend");
  ASSERT_TRUE(killed.ok()) << killed.status().ToString();
  ASSERT_EQ(killed->rows(), 1);
  auto outcome = (*store)->Ingest(MakeRecord(2));
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(*outcome, IngestOutcome::kInserted);
  EXPECT_EQ((*store)->Query({}).value().size(), 2u);
}

TEST(PostgresStoreTest, AnUnreachableServerGivesUnavailableWithTheReason) {
  PostgresOptions options;
  options.connect_timeout_s = 2;
  auto store = OpenPostgresStore(
      "postgresql://sb:secret@/servebench?host=/nonexistent-servebench-socket-dir", options);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kUnavailable);
  const std::string m = store.status().message();
  EXPECT_NE(m.find("cannot connect"), std::string::npos) << m;
  EXPECT_NE(m.find("/nonexistent-servebench-socket-dir"), std::string::npos) << m;
  EXPECT_EQ(m.find("secret"), std::string::npos) << "password leaked: " << m;
}

TEST(PostgresStoreTest, PasswordsAreMaskedInDescriptions) {
  EXPECT_EQ(MaskPassword("postgresql://user:pw@db.example:5432/sb"),
            "postgresql://user:***@db.example:5432/sb");
  EXPECT_EQ(MaskPassword("postgresql://user@db/sb?password=pw&sslmode=require"),
            "postgresql://user@db/sb?password=***&sslmode=require");
  EXPECT_EQ(MaskPassword("postgresql:///sb?host=/tmp"), "postgresql:///sb?host=/tmp");
}

// `servebench ingest` run twice on the same folder leaves one row per record.
TEST(PostgresStoreTest, CliIngestTwiceGivesOneRowEach) {
  std::string url = NewDatabase();
  TempDir dir;
  std::filesystem::create_directories(dir.File("out/records"));
  for (int i = 0; i < 3; ++i) {
    std::ofstream(dir.File("out/records/rec-" + std::to_string(i) + ".json"))
        << record::ToJsonText(MakeRecord(i));
  }
  std::string cmd =
      std::string(SERVEBENCH_BIN) + " ingest --db '" + url + "' " + dir.File("out") + " 2>&1";
  for (int pass = 0; pass < 2; ++pass) {
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string output;
    std::array<char, 4096> buf{};
    size_t n = 0;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) output.append(buf.data(), n);
    int status = pclose(pipe);
    EXPECT_EQ(WEXITSTATUS(status), 0) << output;
    EXPECT_NE(output.find(pass == 0 ? "3 inserted, 0 already present, 0 invalid"
                                    : "0 inserted, 3 already present, 0 invalid"),
              std::string::npos)
        << output;
  }
  auto store = Open(url);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->Query({}).value().size(), 3u);
}

}  // namespace
}  // namespace servebench::store::postgres
