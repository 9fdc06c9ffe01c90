#include "store/sqlite/sqlite_connection.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace servebench::store::sqlite {

Status SqliteError(int code, std::string_view detail, std::string_view what,
                   const std::string& path) {
  std::string where = fmt::format("SQLite database {}: {}", path, what);
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(fmt::format(
          "{}: the database is locked by another process and stayed locked past the busy "
          "timeout ({}); retry when the other writer is done",
          where, detail));
    case SQLITE_FULL:
      return Status::DataLoss(
          fmt::format("{}: the disk is full ({}); free space and ingest again", where, detail));
    case SQLITE_IOERR:
      return Status::DataLoss(fmt::format("{}: I/O error ({}); check the disk", where, detail));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::DataLoss(fmt::format(
          "{}: the file is damaged or is not an SQLite database ({}); use another --db path", where,
          detail));
    case SQLITE_CANTOPEN:
      return Status::Unavailable(
          fmt::format("{}: cannot open the file ({}); check that its folder exists and is writable",
                      where, detail));
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return Status::FailedPrecondition(
          fmt::format("{}: the database is read-only ({}); check file permissions", where, detail));
    default:
      return Status::Internal(fmt::format("{}: {} (SQLite code {})", where, detail, code));
  }
}

StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& path,
                                                       int busy_timeout_ms) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return SqliteError(rc, detail, "open", path);
  }
  std::unique_ptr<Connection> connection(new Connection(db, path));
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  // WAL lets readers (results, dashboard) run while a sweep writes; NORMAL sync in
  // WAL mode survives a process crash (SIGKILL) and loses at most the last commits on
  // power loss, which the JSON record files under --out still hold.
  // Switching a new file to WAL needs an exclusive lock and SQLite returns BUSY at
  // once, without the busy handler, when another process is opening the same new
  // file; retry until the busy timeout, as the handler would.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  while (true) {
    Status wal = connection->Exec("PRAGMA journal_mode=WAL", "set WAL journal mode");
    if (wal.ok()) break;
    if (wal.code() != StatusCode::kUnavailable || std::chrono::steady_clock::now() >= deadline) {
      return wal;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  SB_RETURN_IF_ERROR(connection->Exec("PRAGMA synchronous=NORMAL", "set synchronous=NORMAL"));
  return connection;
}

Connection::~Connection() { sqlite3_close_v2(db_); }

Status Connection::Exec(const std::string& sql, std::string_view what) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string detail = error != nullptr ? error : sqlite3_errstr(rc);
  sqlite3_free(error);
  return SqliteError(rc, detail, what, path_);
}

StatusOr<Statement> Connection::Prepare(const std::string& sql,
                                        const std::vector<std::string>& params,
                                        std::string_view what) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteError(rc, sqlite3_errmsg(db_), what, path_);
  Statement statement(this, stmt, std::string(what));
  for (size_t i = 0; i < params.size(); ++i) {
    rc = sqlite3_bind_text(stmt, static_cast<int>(i + 1), params[i].data(),
                           static_cast<int>(params[i].size()), SQLITE_TRANSIENT);
    if (rc != SQLITE_OK) return SqliteError(rc, sqlite3_errmsg(db_), what, path_);
  }
  return statement;
}

int Connection::Changes() const { return sqlite3_changes(db_); }

Statement::Statement(Statement&& other) noexcept
    : connection_(other.connection_), stmt_(other.stmt_), what_(std::move(other.what_)) {
  other.stmt_ = nullptr;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

StatusOr<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(rc, sqlite3_errmsg(connection_->handle()), what_, connection_->path());
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::optional<int64_t> Statement::ColumnInt(int column) const {
  if (sqlite3_column_type(stmt_, column) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(stmt_, column);
}

}  // namespace servebench::store::sqlite
