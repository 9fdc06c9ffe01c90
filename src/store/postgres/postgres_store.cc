#include "store/postgres/postgres_store.h"

#include "store/postgres/pg_connection.h"
#include "store/sql_store.h"

namespace servebench::store::postgres {
namespace {

// The SqlSession of one libpq connection (results arrive whole, as libpq gives them).
class PostgresSession final : public SqlSession {
 public:
  explicit PostgresSession(std::unique_ptr<Connection> db)
      : db_(std::move(db)), where_("PostgreSQL " + db_->masked_url()) {}

  Dialect dialect() const override { return Dialect::kPostgres; }
  const std::string& where() const override { return where_; }
  std::string Describe() const override { return db_->masked_url(); }

  Status Exec(const std::string& sql, std::string_view what) override {
    return db_->Exec(sql, {}, what).status();
  }

  StatusOr<int64_t> Run(const SqlQuery& query, std::string_view what,
                        const RowHandler& on_row) override {
    SB_ASSIGN_OR_RETURN(Result result, db_->Exec(query.sql, query.params, what));
    if (on_row) {
      std::vector<std::string> columns(static_cast<size_t>(result.columns()));
      for (int row = 0; row < result.rows(); ++row) {
        for (size_t i = 0; i < columns.size(); ++i)
          columns[i] = result.Text(row, static_cast<int>(i));
        SB_RETURN_IF_ERROR(on_row(columns));
      }
    }
    return result.Changes();
  }

 private:
  std::unique_ptr<Connection> db_;
  std::string where_;
};

}  // namespace

StatusOr<std::unique_ptr<Store>> OpenPostgresStore(const std::string& url,
                                                   const PostgresOptions& options) {
  SB_ASSIGN_OR_RETURN(std::unique_ptr<Connection> db,
                      Connection::Open(url, options.connect_timeout_s));
  return OpenSqlStore(std::make_unique<PostgresSession>(std::move(db)), *options.migrations);
}

}  // namespace servebench::store::postgres
