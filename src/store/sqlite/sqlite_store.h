// The SQLite backend of store.h: one database file in WAL mode, so readers never
// wait for a writer and many processes may ingest into one file (they take turns
// for the write lock, waiting up to the busy timeout). WAL needs a local file
// system: put the file on local disk, not NFS (use PostgreSQL to share across hosts).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "store/migrations.h"
#include "store/store.h"

namespace servebench::store::sqlite {

struct SqliteOptions {
  // How long a writer waits for another process's write lock before Unavailable.
  int busy_timeout_ms = 10'000;
  // The schema to migrate to; tests pass their own list to exercise upgrades.
  const std::vector<Migration>* migrations = &Migrations();
};

// Opens or creates the database at `path` and migrates it (store.h, Open).
StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                                 const SqliteOptions& options = {});

}  // namespace servebench::store::sqlite
