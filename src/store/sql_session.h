// SqlSession: the little a database backend provides so that the Store contract
// (store.h) is written once, in sql_store.cc: run SQL in its dialect, with every value
// a bound text parameter, and hand back rows as text. sqlite/ and postgres/ each
// implement it over their connection; nothing outside store/ sees it.
// Not thread-safe: one session is one connection.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "store/sql_query.h"

namespace servebench::store {

class SqlSession {
 public:
  // Gets one row's columns as text ("" for NULL); a non-OK Status stops the query.
  using RowHandler = std::function<Status(const std::vector<std::string>& columns)>;

  virtual ~SqlSession() = default;

  virtual Dialect dialect() const = 0;
  // The database as error messages name it: "SQLite database <path>",
  // "PostgreSQL <url with the password masked>".
  virtual const std::string& where() const = 0;
  // What Store::Describe says: "sqlite:<path>" or the masked URL.
  virtual std::string Describe() const = 0;

  // Runs statements without parameters or rows (DDL, BEGIN, COMMIT); `what` names
  // the operation in error messages.
  virtual Status Exec(const std::string& sql, std::string_view what) = 0;
  // Runs one statement with `query.params` bound in order, calling `on_row` (when
  // set) for each row; returns the rows it changed (an INSERT, UPDATE or DELETE;
  // for other statements the number means nothing).
  virtual StatusOr<int64_t> Run(const SqlQuery& query, std::string_view what,
                                const RowHandler& on_row = {}) = 0;
};

}  // namespace servebench::store
