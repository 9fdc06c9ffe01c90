#include "store/sql_query.h"

#include <fmt/format.h>

namespace servebench::store {
namespace {

class Builder {
 public:
  explicit Builder(Dialect dialect) : prefix_(dialect == Dialect::kSqlite ? '?' : '$') {}

  // Adds `value` as the next parameter and returns its placeholder.
  std::string Bind(std::string value) {
    query_.params.push_back(std::move(value));
    return fmt::format("{}{}", prefix_, query_.params.size());
  }
  SqlQuery& query() { return query_; }

 private:
  char prefix_;
  SqlQuery query_;
};

}  // namespace

SqlQuery BuildRecordQuery(const RecordFilter& filter, Dialect dialect,
                          const std::string& record_column) {
  Builder b(dialect);
  std::vector<std::string> where;
  auto equal = [&](const char* column, const std::string& value) {
    if (!value.empty()) where.push_back(fmt::format("{} = {}", column, b.Bind(value)));
  };
  equal("record_id", filter.record_id);
  equal("run_id", filter.run_id);
  equal("point_id", filter.point_id);
  equal("series_id", filter.series_id);
  equal("recipe", filter.recipe);
  equal("engine", filter.engine);
  equal("model", filter.model);
  equal("hardware", filter.hardware);
  equal("status", filter.status);
  if (!filter.since.empty()) where.push_back("started_at >= " + b.Bind(filter.since));
  if (!filter.until.empty()) where.push_back("started_at < " + b.Bind(filter.until));

  std::string& sql = b.query().sql;
  sql = fmt::format("SELECT {} FROM records", record_column);
  if (!where.empty()) sql += fmt::format(" WHERE {}", fmt::join(where, " AND "));
  sql += filter.order == RecordFilter::Order::kBuildDate
             ? " ORDER BY build_date, started_at, record_id"
             : " ORDER BY started_at, record_id";
  if (filter.limit > 0) sql += fmt::format(" LIMIT {}", filter.limit);
  return std::move(b.query());
}

SqlQuery BuildOkPointIdsQuery(const std::vector<std::string>& point_ids, Dialect dialect) {
  Builder b(dialect);
  std::vector<std::string> placeholders;
  placeholders.reserve(point_ids.size());
  for (const auto& id : point_ids) placeholders.push_back(b.Bind(id));
  // SQLite's planner, without ANALYZE statistics, may pick the status index (nearly
  // every row is 'ok') over the point_id one; unary + keeps it on point_id. The
  // PostgreSQL planner has statistics (and + is not defined for text there).
  b.query().sql = fmt::format(
      "SELECT DISTINCT point_id FROM records WHERE {}status = 'ok' AND point_id IN ({})",
      dialect == Dialect::kSqlite ? "+" : "", fmt::join(placeholders, ", "));
  return std::move(b.query());
}

SqlQuery BuildInsert(const RecordColumns& c, const std::string& record_text,
                     const std::string& ingested_at, Dialect dialect) {
  Builder b(dialect);
  std::vector<std::string> values = {
      b.Bind(c.record_id), b.Bind(c.run_id), b.Bind(c.point_id), b.Bind(c.session_id),
      b.Bind(c.series_id), b.Bind(c.recipe), b.Bind(c.engine), b.Bind(c.model), b.Bind(c.hardware),
      b.Bind(c.precision), b.Bind(c.status), b.Bind(c.failure_class),
      // Text parameters everywhere keeps the binding code one-typed; the cast makes
      // the column an integer (NULL when the record has no concurrency).
      c.concurrency ? fmt::format("CAST({} AS BIGINT)", b.Bind(std::to_string(*c.concurrency)))
                    : std::string("NULL"),
      b.Bind(c.build_date), b.Bind(c.build_commit), b.Bind(c.build_image), b.Bind(c.started_at),
      b.Bind(c.ended_at), b.Bind(ingested_at)};
  std::string columns =
      "record_id, run_id, point_id, session_id, series_id, recipe, engine, model, hardware, "
      "\"precision\", status, failure_class, concurrency, build_date, build_commit, "
      "build_image, started_at, ended_at, ingested_at, record_json";
  if (dialect == Dialect::kPostgres) {
    values.push_back(fmt::format("CAST({} AS JSONB)", b.Bind(record_text)));
    values.push_back(b.Bind(record_text));
    columns += ", record_text";
  } else {
    values.push_back(b.Bind(record_text));
  }
  b.query().sql =
      fmt::format("INSERT INTO records ({}) VALUES ({}) ON CONFLICT (record_id) DO NOTHING",
                  columns, fmt::join(values, ", "));
  return std::move(b.query());
}

SqlQuery BuildSchemaVersionInsert(int version, std::string_view description,
                                  const std::string& applied_at, Dialect dialect) {
  Builder b(dialect);
  std::string v = b.Bind(std::to_string(version));
  std::string d = b.Bind(std::string(description));
  std::string at = b.Bind(applied_at);
  b.query().sql = fmt::format(
      "INSERT INTO schema_version (version, description, applied_at) VALUES (CAST({} AS INTEGER), "
      "{}, {})",
      v, d, at);
  return std::move(b.query());
}

const DialectSql& SqlFor(Dialect dialect) {
  // SQLite: BEGIN IMMEDIATE takes the write lock at once (waiting up to the busy
  // timeout), so two processes opening a new file migrate one after the other, and an
  // ingest's insert and its lookup of an existing row see one database: a reader's
  // stale snapshot can never make the write fail with BUSY_SNAPSHOT.
  static const DialectSql kSqlite{
      "record_json",
      500,
      "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'",
      {"BEGIN IMMEDIATE"},
      "BEGIN IMMEDIATE"};
  // PostgreSQL: an advisory lock (any fixed key; 0x5e7eb3c4) serialises migrations; an ingest is
  // one INSERT ... ON CONFLICT DO NOTHING, atomic by itself, and the lookup after a
  // conflict reads the committed row, so it runs outside a transaction (where the
  // connection layer may retry it once after a server restart).
  static const DialectSql kPostgres{
      "record_text",
      1000,
      "SELECT CASE WHEN to_regclass('schema_version') IS NULL THEN 0 ELSE 1 END",
      {"BEGIN", "SELECT pg_advisory_xact_lock(1585361860)"},
      ""};
  return dialect == Dialect::kSqlite ? kSqlite : kPostgres;
}

}  // namespace servebench::store
