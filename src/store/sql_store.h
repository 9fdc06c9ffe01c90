// The Store contract (store.h) over any SqlSession: migrations, ingest, queries and
// resume lookups written once for SQLite and PostgreSQL. What differs between them
// is SQL text, chosen by the session's Dialect in sql_query.h.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "store/migrations.h"
#include "store/sql_session.h"
#include "store/store.h"

namespace servebench::store {

// Brings the session's database to the newest of `migrations` (refusing one newer
// than this build knows) and returns the Store over it.
StatusOr<std::unique_ptr<Store>> OpenSqlStore(std::unique_ptr<SqlSession> session,
                                              const std::vector<Migration>& migrations);

}  // namespace servebench::store
