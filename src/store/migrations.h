// The store's schema, as an ordered list of migrations. Both backends hold the same
// logical schema: one `records` table (indexed columns of record_columns.h plus the
// whole record JSON) and a `schema_version` table with one row per applied migration.
//
// Rules for adding a migration: append (never edit or reorder a released one), give it
// the next version number, write it for both dialects. Open() applies every migration
// newer than the database's version, in order, inside one transaction, so a database
// is always at exactly one version; a database newer than this list is refused.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace servebench::store {

struct Migration {
  int version;                   // 1, 2, 3, ... with no gaps
  std::string_view description;  // one line, stored in schema_version
  std::string sqlite_sql;        // statements separated by ';'
  std::string postgres_sql;
};

// Every migration, oldest first. The newest version is Migrations().back().version.
const std::vector<Migration>& Migrations();

}  // namespace servebench::store
