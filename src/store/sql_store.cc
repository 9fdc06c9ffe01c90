#include "store/sql_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "common/time_format.h"
#include "record/record_json.h"
#include "store/record_columns.h"

namespace servebench::store {
namespace {

StatusOr<int> ReadVersion(SqlSession& db) {
  std::string exists;
  SB_RETURN_IF_ERROR(db.Run({SqlFor(db.dialect()).schema_version_exists, {}},
                            "read the schema version",
                            [&](const std::vector<std::string>& row) {
                              exists = row.at(0);
                              return Status::Ok();
                            })
                         .status());
  if (exists != "1") return 0;
  int version = 0;
  SB_RETURN_IF_ERROR(db.Run({"SELECT COALESCE(MAX(version), 0) FROM schema_version", {}},
                            "read the schema version",
                            [&](const std::vector<std::string>& row) {
                              version = std::atoi(row.at(0).c_str());
                              return Status::Ok();
                            })
                         .status());
  return version;
}

Status CheckNotNewer(int current, int newest, const std::string& where) {
  if (current <= newest) return Status::Ok();
  return Status::FailedPrecondition(
      fmt::format("{}: schema version {} is newer than this servebench knows ({}); "
                  "use a newer servebench with this database",
                  where, current, newest));
}

// Every migration newer than the database's version, in order, in one transaction
// under the dialect's migration lock, so concurrent openers migrate once.
Status ApplyMigrations(SqlSession& db, const std::vector<Migration>& migrations) {
  const int newest = migrations.empty() ? 0 : migrations.back().version;
  // Fast path without the lock: most opens find the schema current.
  SB_ASSIGN_OR_RETURN(int current, ReadVersion(db));
  SB_RETURN_IF_ERROR(CheckNotNewer(current, newest, db.where()));
  if (current == newest) return Status::Ok();

  const DialectSql& sql = SqlFor(db.dialect());
  SB_RETURN_IF_ERROR(db.Exec(sql.begin_migration.front(), "start the schema migration"));
  auto body = [&]() -> Status {
    for (size_t i = 1; i < sql.begin_migration.size(); ++i) {
      SB_RETURN_IF_ERROR(db.Exec(sql.begin_migration[i], "lock the schema for migration"));
    }
    SB_RETURN_IF_ERROR(
        db.Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY NOT NULL, "
                "description TEXT NOT NULL, applied_at TEXT NOT NULL)",
                "create schema_version"));
    SB_ASSIGN_OR_RETURN(int locked_current, ReadVersion(db));
    SB_RETURN_IF_ERROR(CheckNotNewer(locked_current, newest, db.where()));
    for (const Migration& m : migrations) {
      if (m.version <= locked_current) continue;
      SB_RETURN_IF_ERROR(db.Exec(db.dialect() == Dialect::kSqlite ? m.sqlite_sql : m.postgres_sql,
                                 fmt::format("apply migration {}", m.version)));
      SB_RETURN_IF_ERROR(
          db.Run(BuildSchemaVersionInsert(m.version, m.description, Rfc3339Now(), db.dialect()),
                 "record the schema version")
              .status());
    }
    return db.Exec("COMMIT", "commit the schema migration");
  };
  Status status = body();
  if (!status.ok()) (void)db.Exec("ROLLBACK", "roll back the schema migration");
  return status;
}

class SqlStore final : public Store {
 public:
  explicit SqlStore(std::unique_ptr<SqlSession> db)
      : db_(std::move(db)), sql_(SqlFor(db_->dialect())) {}

  StatusOr<IngestOutcome> Ingest(const record::Record& record) override {
    // What is stored must read back: the codec checks every field (a Record built in
    // code can still hold, say, an empty record_id).
    std::string text = record::ToJsonText(record);
    SB_RETURN_IF_ERROR(record::FromJsonText(text).status());
    RecordColumns columns = ColumnsOf(record);
    if (*sql_.begin_ingest == '\0') return IngestUnlocked(columns, text, record);
    SB_RETURN_IF_ERROR(db_->Exec(sql_.begin_ingest, "start an ingest"));
    StatusOr<IngestOutcome> outcome = IngestUnlocked(columns, text, record);
    if (!outcome.ok()) {
      (void)db_->Exec("ROLLBACK", "roll back an ingest");
      return outcome;
    }
    SB_RETURN_IF_ERROR(db_->Exec("COMMIT", "commit an ingest"));
    return outcome;
  }

  StatusOr<std::vector<record::Record>> Query(const RecordFilter& filter) override {
    SqlQuery query = BuildRecordQuery(filter, db_->dialect(), sql_.record_column);
    std::vector<record::Record> records;
    SB_RETURN_IF_ERROR(db_->Run(query, "query records",
                                [&](const std::vector<std::string>& row) {
                                  return ReadStored(row.at(0), records);
                                })
                           .status());
    return records;
  }

  StatusOr<std::set<std::string>> OkPointIds(const std::vector<std::string>& point_ids) override {
    std::set<std::string> ok;
    for (size_t begin = 0; begin < point_ids.size(); begin += sql_.ids_per_query) {
      size_t end = std::min(point_ids.size(), begin + sql_.ids_per_query);
      std::vector<std::string> chunk(point_ids.begin() + begin, point_ids.begin() + end);
      SB_RETURN_IF_ERROR(db_->Run(BuildOkPointIdsQuery(chunk, db_->dialect()),
                                  "find points already ok",
                                  [&](const std::vector<std::string>& row) {
                                    ok.insert(row.at(0));
                                    return Status::Ok();
                                  })
                             .status());
    }
    return ok;
  }

  StatusOr<int> SchemaVersion() override { return ReadVersion(*db_); }

  std::string Describe() const override { return db_->Describe(); }

 private:
  // The insert, and on a conflict the comparison with the stored record; inside the
  // dialect's ingest transaction when it has one.
  StatusOr<IngestOutcome> IngestUnlocked(const RecordColumns& columns, const std::string& text,
                                         const record::Record& record) {
    SqlQuery insert = BuildInsert(columns, text, Rfc3339Now(), db_->dialect());
    SB_ASSIGN_OR_RETURN(int64_t changed, db_->Run(insert, "insert a record"));
    if (changed == 1) return IngestOutcome::kInserted;
    RecordFilter same;
    same.record_id = columns.record_id;
    SB_ASSIGN_OR_RETURN(std::vector<record::Record> existing, Query(same));
    if (existing.size() == 1 && existing[0] == record) {
      return IngestOutcome::kAlreadyPresent;
    }
    return IngestOutcome::kConflict;
  }

  // One stored row's record text, read with the codec (older schemas migrated).
  Status ReadStored(const std::string& text, std::vector<record::Record>& out) {
    StatusOr<record::Record> r = record::FromJsonText(text);
    if (r.ok()) {
      out.push_back(std::move(*r));
      return Status::Ok();
    }
    boost::system::error_code ec;
    boost::json::value v = boost::json::parse(text, ec);
    const boost::json::value* id =
        !ec && v.is_object() ? v.get_object().if_contains("record_id") : nullptr;
    return Status::FailedPrecondition(fmt::format(
        "{}: stored record {} does not read as a record ({}); a newer servebench may have "
        "written it",
        db_->where(), id != nullptr ? boost::json::serialize(*id) : "(no record_id)",
        r.status().message()));
  }

  std::unique_ptr<SqlSession> db_;
  const DialectSql& sql_;
};

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenSqlStore(std::unique_ptr<SqlSession> session,
                                              const std::vector<Migration>& migrations) {
  SB_RETURN_IF_ERROR(ApplyMigrations(*session, migrations));
  return std::unique_ptr<Store>(new SqlStore(std::move(session)));
}

}  // namespace servebench::store
