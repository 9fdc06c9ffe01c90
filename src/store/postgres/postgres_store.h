// The PostgreSQL backend of store.h, for a store shared by many machines (Slurm
// array tasks, CI runners). The same logical schema as SQLite (migrations.h); the
// record is kept as jsonb for SQL queries and as its exact text for reading back.
// Migrations run under a transaction-scoped advisory lock, so many processes may
// open a new database at once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "store/migrations.h"
#include "store/store.h"

namespace servebench::store::postgres {

struct PostgresOptions {
  // Seconds to wait for the server when connecting (unless the URL says otherwise).
  int connect_timeout_s = 10;
  // The schema to migrate to; tests pass their own list to exercise upgrades.
  const std::vector<Migration>* migrations = &Migrations();
};

// Connects to `url` ("postgresql://user@host:port/db?..."), creates or migrates the
// schema (store.h, Open).
StatusOr<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url,
                                                   const PostgresOptions& options = {});

}  // namespace servebench::store::postgres
