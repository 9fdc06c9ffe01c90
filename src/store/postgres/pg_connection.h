// A thin RAII layer over libpq for the store: one connection, parameterised queries
// with text parameters and results, and server errors turned into Status by their
// SQLSTATE (connection lost -> Unavailable, disk full -> DataLoss, ...). A command
// outside a transaction that fails because the connection broke (server restarted)
// is retried once on a reset connection. Not thread-safe: one connection per thread.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::store::postgres {

// `url` with any password replaced by "***", for messages and logs.
std::string MaskPassword(const std::string& url);

// A query's rows, all values as text ("" for NULL).
class Result {
 public:
  explicit Result(PGresult* result) : result_(result, &PQclear) {}
  int rows() const { return PQntuples(result_.get()); }
  int columns() const { return PQnfields(result_.get()); }
  std::string Text(int row, int column) const;
  bool IsNull(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }
  // Rows changed by an INSERT/UPDATE/DELETE.
  int Changes() const;

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> result_;
};

class Connection {
 public:
  // Connects to `url` (libpq URL); waits at most `connect_timeout_s` unless the URL
  // sets connect_timeout. Unavailable with libpq's reason if it cannot connect.
  static StatusOr<std::unique_ptr<Connection>> Open(const std::string& url, int connect_timeout_s);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs `sql` (one statement when params is non-empty, any number otherwise).
  // `what` names the operation in error messages.
  StatusOr<Result> Exec(const std::string& sql, const std::vector<std::string>& params,
                        std::string_view what);

  const std::string& masked_url() const { return masked_url_; }

 private:
  Connection(PGconn* conn, std::string masked_url)
      : conn_(conn), masked_url_(std::move(masked_url)) {}
  PGconn* conn_;
  std::string masked_url_;
};

}  // namespace servebench::store::postgres
