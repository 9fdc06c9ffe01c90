#include "store/sqlite/sqlite_store.h"

#include "store/sql_store.h"
#include "store/sqlite/sqlite_connection.h"

namespace servebench::store::sqlite {
namespace {

// The SqlSession of one SQLite connection: statements stepped row by row, so a
// large query never holds more than one row's text beside the records it built.
class SqliteSession final : public SqlSession {
 public:
  explicit SqliteSession(std::unique_ptr<Connection> db)
      : db_(std::move(db)), where_("SQLite database " + db_->path()) {}

  Dialect dialect() const override { return Dialect::kSqlite; }
  const std::string& where() const override { return where_; }
  std::string Describe() const override { return "sqlite:" + db_->path(); }

  Status Exec(const std::string& sql, std::string_view what) override {
    return db_->Exec(sql, what);
  }

  StatusOr<int64_t> Run(const SqlQuery& query, std::string_view what,
                        const RowHandler& on_row) override {
    SB_ASSIGN_OR_RETURN(Statement statement, db_->Prepare(query.sql, query.params, what));
    std::vector<std::string> columns;
    while (true) {
      SB_ASSIGN_OR_RETURN(bool row, statement.Step());
      if (!row) break;
      if (!on_row) continue;
      columns.resize(static_cast<size_t>(statement.ColumnCount()));
      for (size_t i = 0; i < columns.size(); ++i)
        columns[i] = statement.ColumnText(static_cast<int>(i));
      SB_RETURN_IF_ERROR(on_row(columns));
    }
    return db_->Changes();
  }

 private:
  std::unique_ptr<Connection> db_;
  std::string where_;
};

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                                 const SqliteOptions& options) {
  if (path.empty()) {
    return Status::InvalidArgument("--db is empty: give a SQLite file path or a postgresql:// URL");
  }
  SB_ASSIGN_OR_RETURN(std::unique_ptr<Connection> db,
                      Connection::Open(path, options.busy_timeout_ms));
  return OpenSqlStore(std::make_unique<SqliteSession>(std::move(db)), *options.migrations);
}

}  // namespace servebench::store::sqlite
