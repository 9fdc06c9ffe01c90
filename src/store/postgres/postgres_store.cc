#include "store/postgres/postgres_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "store/postgres/pg_connection.h"
#include "store/record_columns.h"
#include "store/sql_query.h"

namespace servebench::store::postgres {
namespace {

// libpq allows 65535 parameters per statement; stay far below it.
constexpr size_t kPointIdsPerQuery = 1000;
// Any fixed number: the advisory lock that serialises schema migrations.
constexpr int64_t kMigrationLockKey = 0x5e7eb3c4;

StatusOr<int> ReadVersion(Connection& db) {
  SB_ASSIGN_OR_RETURN(Result exists, db.Exec("SELECT to_regclass('schema_version') IS NOT NULL", {},
                                             "read the schema version"));
  if (exists.rows() != 1 || exists.Text(0, 0) != "t") return 0;
  SB_ASSIGN_OR_RETURN(Result max, db.Exec("SELECT COALESCE(MAX(version), 0) FROM schema_version",
                                          {}, "read the schema version"));
  return max.rows() == 1 ? std::atoi(max.Text(0, 0).c_str()) : 0;
}

Status CheckNotNewer(int current, int newest, const std::string& url) {
  if (current <= newest) return Status::Ok();
  return Status::FailedPrecondition(fmt::format(
      "PostgreSQL {}: schema version {} is newer than this servebench knows ({}); "
      "use a newer servebench with this database",
      url, current, newest));
}

Status ApplyMigrations(Connection& db, const std::vector<Migration>& migrations) {
  const int newest = migrations.empty() ? 0 : migrations.back().version;
  SB_ASSIGN_OR_RETURN(int current, ReadVersion(db));
  SB_RETURN_IF_ERROR(CheckNotNewer(current, newest, db.masked_url()));
  if (current == newest) return Status::Ok();

  SB_RETURN_IF_ERROR(db.Exec("BEGIN", {}, "start the schema migration").status());
  auto body = [&]() -> Status {
    SB_RETURN_IF_ERROR(db.Exec(fmt::format("SELECT pg_advisory_xact_lock({})", kMigrationLockKey),
                               {}, "lock the schema for migration")
                           .status());
    SB_RETURN_IF_ERROR(db.Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER "
                               "PRIMARY KEY NOT NULL, description TEXT NOT NULL, applied_at "
                               "TEXT NOT NULL)",
                               {}, "create schema_version")
                           .status());
    SB_ASSIGN_OR_RETURN(int locked_current, ReadVersion(db));
    SB_RETURN_IF_ERROR(CheckNotNewer(locked_current, newest, db.masked_url()));
    for (const Migration& m : migrations) {
      if (m.version <= locked_current) continue;
      SB_RETURN_IF_ERROR(
          db.Exec(m.postgres_sql, {}, fmt::format("apply migration {}", m.version)).status());
      SB_RETURN_IF_ERROR(db.Exec("INSERT INTO schema_version (version, description, applied_at) "
                                 "VALUES (CAST($1 AS INTEGER), $2, $3)",
                                 {std::to_string(m.version), std::string(m.description),
                                  NowRfc3339()},
                                 "record the schema version")
                             .status());
    }
    return db.Exec("COMMIT", {}, "commit the schema migration").status();
  };
  Status status = body();
  if (!status.ok()) (void)db.Exec("ROLLBACK", {}, "roll back the schema migration");
  return status;
}

class PostgresStore final : public Store {
 public:
  explicit PostgresStore(std::unique_ptr<Connection> db) : db_(std::move(db)) {}

  StatusOr<IngestOutcome> Ingest(const boost::json::object& record) override {
    SB_ASSIGN_OR_RETURN(RecordColumns columns, ExtractRecordColumns(record));
    std::string text = boost::json::serialize(record);
    SqlQuery insert = BuildInsert(columns, text, NowRfc3339(), Dialect::kPostgres);
    SB_ASSIGN_OR_RETURN(Result result, db_->Exec(insert.sql, insert.params, "insert a record"));
    if (result.Changes() == 1) return IngestOutcome::kInserted;

    RecordFilter same;
    same.record_id = columns.record_id;
    SB_ASSIGN_OR_RETURN(std::vector<boost::json::object> existing, Query(same));
    if (existing.size() == 1 && JsonEquivalent(existing[0], record)) {
      return IngestOutcome::kAlreadyPresent;
    }
    return IngestOutcome::kConflict;
  }

  StatusOr<std::vector<boost::json::object>> Query(const RecordFilter& filter) override {
    SqlQuery query = BuildRecordQuery(filter, Dialect::kPostgres, "record_text");
    SB_ASSIGN_OR_RETURN(Result result, db_->Exec(query.sql, query.params, "query records"));
    std::vector<boost::json::object> records;
    records.reserve(static_cast<size_t>(result.rows()));
    for (int row = 0; row < result.rows(); ++row) {
      boost::system::error_code ec;
      boost::json::value value = boost::json::parse(result.Text(row, 0), ec);
      if (ec || !value.is_object()) {
        return Status::DataLoss(fmt::format(
            "PostgreSQL {}: a stored record's text is not a JSON object ({})", db_->masked_url(),
            ec ? ec.message() : "not an object"));
      }
      records.push_back(std::move(value.get_object()));
    }
    return records;
  }

  StatusOr<std::set<std::string>> OkPointIds(const std::vector<std::string>& point_ids) override {
    std::set<std::string> ok;
    for (size_t begin = 0; begin < point_ids.size(); begin += kPointIdsPerQuery) {
      size_t end = std::min(point_ids.size(), begin + kPointIdsPerQuery);
      std::vector<std::string> chunk(point_ids.begin() + begin, point_ids.begin() + end);
      SqlQuery query = BuildOkPointIdsQuery(chunk, Dialect::kPostgres);
      SB_ASSIGN_OR_RETURN(Result result, db_->Exec(query.sql, query.params, "find points already ok"));
      for (int row = 0; row < result.rows(); ++row) ok.insert(result.Text(row, 0));
    }
    return ok;
  }

  StatusOr<int> SchemaVersion() override { return ReadVersion(*db_); }

  std::string Describe() const override { return db_->masked_url(); }

 private:
  std::unique_ptr<Connection> db_;
};

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url,
                                                   const PostgresOptions& options) {
  SB_ASSIGN_OR_RETURN(std::unique_ptr<Connection> db,
                      Connection::Open(url, options.connect_timeout_s));
  SB_RETURN_IF_ERROR(ApplyMigrations(*db, *options.migrations));
  return std::unique_ptr<Store>(new PostgresStore(std::move(db)));
}

}  // namespace servebench::store::postgres
