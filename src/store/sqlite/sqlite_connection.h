// A thin RAII layer over the SQLite C API for the store: one connection, prepared
// statements with text parameters, and SQLite result codes turned into Status with
// messages a person can act on (locked, disk full, not a database). Not thread-safe:
// one connection per thread.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::store::sqlite {

// Maps an SQLite error to a Status: SQLITE_BUSY/LOCKED -> Unavailable (another
// process holds the lock), SQLITE_FULL/IOERR -> DataLoss, SQLITE_CORRUPT/NOTADB ->
// DataLoss (the file is damaged or not a database), SQLITE_CANTOPEN -> Unavailable,
// SQLITE_READONLY -> FailedPrecondition, anything else -> Internal. `what` names the
// operation and `path` the database file.
Status SqliteError(int code, std::string_view detail, std::string_view what,
                   const std::string& path);

class Statement;

class Connection {
 public:
  // Opens (creating) `path` with the busy timeout, WAL journal and NORMAL sync.
  static StatusOr<std::unique_ptr<Connection>> Open(const std::string& path, int busy_timeout_ms);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more statements that return no rows.
  Status Exec(const std::string& sql, std::string_view what);
  // Prepares one statement with `params` bound as text (?1 = params[0]).
  StatusOr<Statement> Prepare(const std::string& sql, const std::vector<std::string>& params,
                              std::string_view what);
  // Rows changed by the last INSERT/UPDATE/DELETE.
  int Changes() const;

  sqlite3* handle() { return db_; }
  const std::string& path() const { return path_; }

 private:
  Connection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

// A prepared statement. Step() until it returns false; column accessors are valid
// for the row Step() just produced.
class Statement {
 public:
  Statement(Connection* connection, sqlite3_stmt* stmt, std::string what)
      : connection_(connection), stmt_(stmt), what_(std::move(what)) {}
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  // True when a row is ready, false when done; an error Status otherwise.
  StatusOr<bool> Step();
  int ColumnCount() const { return sqlite3_column_count(stmt_); }
  std::string ColumnText(int column) const;
  std::optional<int64_t> ColumnInt(int column) const;

 private:
  Connection* connection_;
  sqlite3_stmt* stmt_;
  std::string what_;
};

}  // namespace servebench::store::sqlite
