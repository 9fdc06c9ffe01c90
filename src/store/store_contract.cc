// Contract tests run against every backend (see store_contract.h).
#include "store/store_contract.h"

#include <boost/json.hpp>

#include "record/record_json.h"
#include "store/store_test_util.h"

namespace servebench::store::testutil {

std::unique_ptr<Store> StoreContractTest::OpenFresh() {
  location_ = GetParam().new_location();
  auto store = GetParam().open(location_, &Migrations());
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

namespace {

std::vector<std::string> Ids(const std::vector<record::Record>& records) {
  std::vector<std::string> ids;
  for (const auto& r : records) ids.push_back(r.record_id);
  return ids;
}

TEST_P(StoreContractTest, OpenOnEmptyCreatesTheNewestSchema) {
  auto store = OpenFresh();
  ASSERT_NE(store, nullptr);
  auto version = store->SchemaVersion();
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_EQ(*version, Migrations().back().version);
}

TEST_P(StoreContractTest, ReopenKeepsRecordsAndSchema) {
  {
    auto store = OpenFresh();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->Ingest(MakeRecord(1)).ok());
  }
  auto again = GetParam().open(location_, &Migrations());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->SchemaVersion().value(), Migrations().back().version);
  EXPECT_EQ((*again)->Query({}).value().size(), 1u);
}

TEST_P(StoreContractTest, IngestingTheSameRecordTwiceGivesOneRow) {
  auto store = OpenFresh();
  ASSERT_NE(store, nullptr);
  auto first = store->Ingest(MakeRecord(7));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, IngestOutcome::kInserted);
  auto second = store->Ingest(MakeRecord(7));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, IngestOutcome::kAlreadyPresent);
  EXPECT_EQ(store->Query({}).value().size(), 1u);
}

TEST_P(StoreContractTest, ADifferentRecordWithAnExistingIdIsAConflictAndNotStored) {
  auto store = OpenFresh();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Ingest(MakeRecord(7)).ok());
  record::Record changed = MakeRecord(7);
  changed.status = record::RecordStatus::kFailed;
  auto outcome = store->Ingest(changed);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(*outcome, IngestOutcome::kConflict);
  auto rows = store->Query({}).value();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, record::RecordStatus::kOk);
}

TEST_P(StoreContractTest, InvalidRecordIsRefusedWithTheFieldName) {
  auto store = OpenFresh();
  ASSERT_NE(store, nullptr);
  record::Record bad = MakeRecord(1);
  bad.point_id.clear();
  auto outcome = store->Ingest(bad);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(outcome.status().message().find("point_id: is empty"), std::string::npos)
      << outcome.status().message();
  EXPECT_TRUE(store->Query({}).value().empty());
}

TEST_P(StoreContractTest, RecordsReadBackExactlyAsWritten) {
  auto store = OpenFresh();
  ASSERT_NE(store, nullptr);
  record::Record r = MakeRecord(2);
  boost::json::object summary = *r.summary;
  summary["output_throughput"] = 2.0;  // jsonb would say 2
  summary["note"] = "ünïcode \"quoted\"";
  summary["long_fraction"] = 1000.0 / 9.6;  // Boost.JSON's own parser reads it 1 ulp off
  record::SetLoadResult(&r, summary);
  ASSERT_TRUE(store->Ingest(r).ok());
  auto rows = store->Query({}).value();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], r);
  EXPECT_EQ(record::ToJsonText(rows[0]), record::ToJsonText(r));
  EXPECT_TRUE(rows[0].summary->at("output_throughput").is_double());
}

TEST_P(StoreContractTest, QueryFiltersByEachIndexedField) {
  auto store = OpenFresh();
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 6; ++i) {
    record::Record r = MakeRecord(i);
    r.engine = i % 2 == 0 ? "vllm" : "sglang";
    r.model = i < 3 ? "m-a" : "m-b";
    r.hardware = i == 5 ? "mi355x" : "h200";
    r.recipe = i == 4 ? "other" : "quickstart-sim";
    r.status = i == 1 ? record::RecordStatus::kFailed : record::RecordStatus::kOk;
    r.run_id = i < 2 ? "run-a" : "run-b";
    ASSERT_TRUE(store->Ingest(r).ok());
  }
  auto ids = [&](RecordFilter f) { return Ids(store->Query(f).value()); };
  using V = std::vector<std::string>;
  RecordFilter f;
  EXPECT_EQ(ids(f).size(), 6u);
  f = {};
  f.engine = "vllm";
  EXPECT_EQ(ids(f), (V{"rec-0", "rec-2", "rec-4"}));
  f = {};
  f.model = "m-b";
  f.engine = "sglang";
  EXPECT_EQ(ids(f), (V{"rec-3", "rec-5"}));
  f = {};
  f.hardware = "mi355x";
  EXPECT_EQ(ids(f), (V{"rec-5"}));
  f = {};
  f.recipe = "other";
  EXPECT_EQ(ids(f), (V{"rec-4"}));
  f = {};
  f.status = "failed";
  EXPECT_EQ(ids(f), (V{"rec-1"}));
  f = {};
  f.run_id = "run-a";
  EXPECT_EQ(ids(f), (V{"rec-0", "rec-1"}));
  f = {};
  f.point_id = "point-3";
  EXPECT_EQ(ids(f), (V{"rec-3"}));
  f = {};
  f.series_id = "series-2";
  EXPECT_EQ(ids(f), (V{"rec-2"}));
  f = {};
  f.record_id = "rec-4";
  EXPECT_EQ(ids(f), (V{"rec-4"}));
  f = {};
  f.since = "2026-11-29T20:02:00Z";
  f.until = "2026-11-29T20:04:00Z";
  EXPECT_EQ(ids(f), (V{"rec-2", "rec-3"}));
  f = {};
  f.since = "2026-11-30";
  EXPECT_TRUE(ids(f).empty());
  f = {};
  f.limit = 2;
  EXPECT_EQ(ids(f), (V{"rec-0", "rec-1"}));
  f = {};
  f.engine = "nonesuch";
  EXPECT_TRUE(ids(f).empty());
}

TEST_P(StoreContractTest, SeriesIsOrderedByBuildDate) {
  auto store = OpenFresh();
  ASSERT_NE(store, nullptr);
  const char* dates[] = {"2026-11-28", "2026-11-26", "2026-11-29", "2026-11-27"};
  for (int i = 0; i < 4; ++i) {
    record::Record r = MakeRecord(i);
    r.series_id = "nightly-1";
    r.build.date = dates[i];
    ASSERT_TRUE(store->Ingest(r).ok());
  }
  ASSERT_TRUE(store->Ingest(MakeRecord(9)).ok());  // another series
  auto series = store->Series("nightly-1");
  ASSERT_TRUE(series.ok()) << series.status().ToString();
  EXPECT_EQ(Ids(*series), (std::vector<std::string>{"rec-1", "rec-3", "rec-0", "rec-2"}));
}

TEST_P(StoreContractTest, OkPointIdsReturnsOnlyPointsRecordedOk) {
  auto store = OpenFresh();
  ASSERT_NE(store, nullptr);
  std::vector<std::string> asked;
  for (int i = 0; i < 1200; ++i) asked.push_back("point-" + std::to_string(i));
  record::Record failed = MakeRecord(5);
  failed.status = record::RecordStatus::kFailed;
  ASSERT_TRUE(store->Ingest(failed).ok());
  ASSERT_TRUE(store->Ingest(MakeRecord(6)).ok());
  ASSERT_TRUE(store->Ingest(MakeRecord(1100)).ok());  // beyond the first query chunk
  ASSERT_TRUE(store->Ingest(MakeRecord(5000)).ok());  // not asked about
  auto ok = store->OkPointIds(asked);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, (std::set<std::string>{"point-6", "point-1100"}));
  EXPECT_TRUE(store->OkPointIds({}).value().empty());
}

TEST_P(StoreContractTest, UpgradeAppliesOnlyNewMigrationsAndKeepsRecords) {
  location_ = GetParam().new_location();
  std::vector<Migration> v1 = {Migrations().front()};
  {
    auto store = GetParam().open(location_, &v1);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->Ingest(MakeRecord(1)).ok());
  }
  std::vector<Migration> v2 = v1;
  v2.push_back({2, "test: a notes table", "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
                "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)"});
  {
    auto store = GetParam().open(location_, &v2);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    EXPECT_EQ((*store)->SchemaVersion().value(), 2);
    EXPECT_EQ((*store)->Query({}).value().size(), 1u);
  }
  // Re-opening at version 2 must not re-run step 2 (CREATE TABLE would fail).
  auto reopened = GetParam().open(location_, &v2);
  EXPECT_TRUE(reopened.ok()) << reopened.status().ToString();
  // An older servebench refuses the newer database instead of misreading it.
  auto older = GetParam().open(location_, &v1);
  ASSERT_FALSE(older.ok());
  EXPECT_EQ(older.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(older.status().message().find("schema version 2 is newer"), std::string::npos)
      << older.status().message();
}

TEST_P(StoreContractTest, AFailedMigrationLeavesTheDatabaseAtItsOldVersion) {
  location_ = GetParam().new_location();
  std::vector<Migration> v1 = {Migrations().front()};
  ASSERT_TRUE(GetParam().open(location_, &v1).ok());
  std::vector<Migration> broken = v1;
  broken.push_back({2, "test: half good, half broken",
                    "CREATE TABLE half (id INTEGER); THIS IS NOT SQL",
                    "CREATE TABLE half (id INTEGER); THIS IS NOT SQL"});
  auto failed = GetParam().open(location_, &broken);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("apply migration 2"), std::string::npos)
      << failed.status().message();
  auto store = GetParam().open(location_, &v1);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->SchemaVersion().value(), 1);
  // The good half of step 2 was rolled back too: applying a fixed step 2 works.
  std::vector<Migration> fixed = v1;
  fixed.push_back(
      {2, "test: fixed", "CREATE TABLE half (id INTEGER)", "CREATE TABLE half (id INTEGER)"});
  EXPECT_TRUE(GetParam().open(location_, &fixed).ok());
}

}  // namespace
}  // namespace servebench::store::testutil
