// SQL text shared by the SQLite and PostgreSQL backends. Every value travels as a
// bound parameter, never spliced into the text. Placeholders are numbered: "?1" for
// SQLite, "$1" for PostgreSQL. Thread-safe (pure functions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "store/record_columns.h"
#include "store/store.h"

namespace servebench::store {

struct SqlQuery {
  std::string sql;
  std::vector<std::string> params;  // bound in order: params[0] is placeholder 1
};

enum class Dialect { kSqlite, kPostgres };

// What else differs between the dialects, beyond placeholders (sql_store.cc uses it).
struct DialectSql {
  // The column holding each record's exact JSON text (PostgreSQL's record_json is
  // jsonb, which normalises numbers and key order).
  const char* record_column;
  // Bound parameters per IN (...) list, far below each library's limit.
  size_t ids_per_query;
  // One row, one column: 1 when the schema_version table exists, else 0.
  const char* schema_version_exists;
  // Statements that open the migration transaction and take the lock that makes a
  // second process wait, then see the first one's version.
  std::vector<std::string> begin_migration;
  // Opens an ingest's transaction; empty = the ingest needs none.
  const char* begin_ingest;
};
const DialectSql& SqlFor(Dialect dialect);

// SELECT <record_column> FROM records WHERE <filter> ORDER BY <filter.order> [LIMIT].
SqlQuery BuildRecordQuery(const RecordFilter& filter, Dialect dialect,
                          const std::string& record_column);

// SELECT DISTINCT point_id FROM records WHERE status = 'ok' AND point_id IN (...).
SqlQuery BuildOkPointIdsQuery(const std::vector<std::string>& point_ids, Dialect dialect);

// INSERT INTO records (...) VALUES (...) ON CONFLICT (record_id) DO NOTHING, with
// the columns, ingested_at and the record's JSON text as parameters. For PostgreSQL
// the text is bound twice: record_json (cast to jsonb) and record_text.
SqlQuery BuildInsert(const RecordColumns& columns, const std::string& record_text,
                     const std::string& ingested_at, Dialect dialect);

// INSERT INTO schema_version: one applied migration.
SqlQuery BuildSchemaVersionInsert(int version, std::string_view description,
                                  const std::string& applied_at, Dialect dialect);

}  // namespace servebench::store
