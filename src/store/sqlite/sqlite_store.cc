#include "store/sqlite/sqlite_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "store/record_columns.h"
#include "store/sql_query.h"
#include "store/sqlite/sqlite_connection.h"

namespace servebench::store::sqlite {
namespace {

// SQLite's default limit on bound parameters is 32766; stay far below it.
constexpr size_t kPointIdsPerQuery = 500;

StatusOr<int> ReadVersion(Connection& db) {
  SB_ASSIGN_OR_RETURN(
      Statement exists,
      db.Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
                 {}, "read the schema version"));
  SB_ASSIGN_OR_RETURN(bool has_table, exists.Step());
  if (!has_table) return 0;
  SB_ASSIGN_OR_RETURN(Statement max, db.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version",
                                                {}, "read the schema version"));
  SB_ASSIGN_OR_RETURN(bool row, max.Step());
  return row ? static_cast<int>(max.ColumnInt(0).value_or(0)) : 0;
}

Status CheckNotNewer(int current, int newest, const std::string& path) {
  if (current <= newest) return Status::Ok();
  return Status::FailedPrecondition(fmt::format(
      "SQLite database {}: schema version {} is newer than this servebench knows ({}); "
      "use a newer servebench with this database",
      path, current, newest));
}

Status ApplyMigrations(Connection& db, const std::vector<Migration>& migrations) {
  const int newest = migrations.empty() ? 0 : migrations.back().version;
  // Fast path without the write lock: most opens find the schema current.
  SB_ASSIGN_OR_RETURN(int current, ReadVersion(db));
  SB_RETURN_IF_ERROR(CheckNotNewer(current, newest, db.path()));
  if (current == newest) return Status::Ok();

  // IMMEDIATE takes the write lock now, so two processes opening a new file migrate
  // one after the other and the second sees the first's version.
  SB_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE", "start the schema migration"));
  auto body = [&]() -> Status {
    SB_RETURN_IF_ERROR(db.Exec(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY NOT NULL, "
        "description TEXT NOT NULL, applied_at TEXT NOT NULL)",
        "create schema_version"));
    SB_ASSIGN_OR_RETURN(int locked_current, ReadVersion(db));
    SB_RETURN_IF_ERROR(CheckNotNewer(locked_current, newest, db.path()));
    for (const Migration& m : migrations) {
      if (m.version <= locked_current) continue;
      SB_RETURN_IF_ERROR(db.Exec(m.sqlite_sql, fmt::format("apply migration {}", m.version)));
      SB_ASSIGN_OR_RETURN(
          Statement insert,
          db.Prepare("INSERT INTO schema_version (version, description, applied_at) "
                     "VALUES (CAST(?1 AS INTEGER), ?2, ?3)",
                     {std::to_string(m.version), std::string(m.description), NowRfc3339()},
                     "record the schema version"));
      SB_RETURN_IF_ERROR(insert.Step().status());
    }
    return db.Exec("COMMIT", "commit the schema migration");
  };
  Status status = body();
  if (!status.ok()) (void)db.Exec("ROLLBACK", "roll back the schema migration");
  return status;
}

StatusOr<boost::json::object> ParseStored(const std::string& text, const std::string& path) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec || !value.is_object()) {
    return Status::DataLoss(fmt::format(
        "SQLite database {}: a stored record is not a JSON object ({}); the file is damaged",
        path, ec ? ec.message() : "not an object"));
  }
  return std::move(value.get_object());
}

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(std::unique_ptr<Connection> db) : db_(std::move(db)) {}

  StatusOr<IngestOutcome> Ingest(const boost::json::object& record) override {
    SB_ASSIGN_OR_RETURN(RecordColumns columns, ExtractRecordColumns(record));
    std::string text = boost::json::serialize(record);
    // IMMEDIATE takes the write lock first (waiting up to the busy timeout), so the
    // insert and the lookup of an existing row see one consistent database, and a
    // reader's stale snapshot can never make the write fail with BUSY_SNAPSHOT.
    SB_RETURN_IF_ERROR(db_->Exec("BEGIN IMMEDIATE", "start an ingest"));
    StatusOr<IngestOutcome> outcome = IngestLocked(columns, text, record);
    if (!outcome.ok()) {
      (void)db_->Exec("ROLLBACK", "roll back an ingest");
      return outcome;
    }
    SB_RETURN_IF_ERROR(db_->Exec("COMMIT", "commit an ingest"));
    return outcome;
  }

  StatusOr<std::vector<boost::json::object>> Query(const RecordFilter& filter) override {
    SqlQuery query = BuildRecordQuery(filter, Dialect::kSqlite, "record_json");
    SB_ASSIGN_OR_RETURN(Statement statement, db_->Prepare(query.sql, query.params, "query records"));
    std::vector<boost::json::object> records;
    while (true) {
      SB_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      SB_ASSIGN_OR_RETURN(boost::json::object record, ParseStored(statement.ColumnText(0), db_->path()));
      records.push_back(std::move(record));
    }
    return records;
  }

  StatusOr<std::set<std::string>> OkPointIds(const std::vector<std::string>& point_ids) override {
    std::set<std::string> ok;
    for (size_t begin = 0; begin < point_ids.size(); begin += kPointIdsPerQuery) {
      size_t end = std::min(point_ids.size(), begin + kPointIdsPerQuery);
      std::vector<std::string> chunk(point_ids.begin() + begin, point_ids.begin() + end);
      SqlQuery query = BuildOkPointIdsQuery(chunk, Dialect::kSqlite);
      SB_ASSIGN_OR_RETURN(Statement statement,
                          db_->Prepare(query.sql, query.params, "find points already ok"));
      while (true) {
        SB_ASSIGN_OR_RETURN(bool row, statement.Step());
        if (!row) break;
        ok.insert(statement.ColumnText(0));
      }
    }
    return ok;
  }

  StatusOr<int> SchemaVersion() override { return ReadVersion(*db_); }

  std::string Describe() const override { return "sqlite:" + db_->path(); }

 private:
  StatusOr<IngestOutcome> IngestLocked(const RecordColumns& columns, const std::string& text,
                                       const boost::json::object& record) {
    SqlQuery insert = BuildInsert(columns, text, NowRfc3339(), Dialect::kSqlite);
    {
      SB_ASSIGN_OR_RETURN(Statement statement,
                          db_->Prepare(insert.sql, insert.params, "insert a record"));
      SB_RETURN_IF_ERROR(statement.Step().status());
    }
    if (db_->Changes() == 1) return IngestOutcome::kInserted;
    RecordFilter same;
    same.record_id = columns.record_id;
    SB_ASSIGN_OR_RETURN(std::vector<boost::json::object> existing, Query(same));
    if (existing.size() == 1 && JsonEquivalent(existing[0], record)) {
      return IngestOutcome::kAlreadyPresent;
    }
    return IngestOutcome::kConflict;
  }

  std::unique_ptr<Connection> db_;
};

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                                 const SqliteOptions& options) {
  if (path.empty()) {
    return Status::InvalidArgument("--db is empty: give a SQLite file path or a postgresql:// URL");
  }
  SB_ASSIGN_OR_RETURN(std::unique_ptr<Connection> db, Connection::Open(path, options.busy_timeout_ms));
  SB_RETURN_IF_ERROR(ApplyMigrations(*db, *options.migrations));
  return std::unique_ptr<Store>(new SqliteStore(std::move(db)));
}

}  // namespace servebench::store::sqlite
