#include "store/store.h"

#include "store/postgres/postgres_store.h"
#include "store/sqlite/sqlite_store.h"

namespace servebench::store {

std::string_view IngestOutcomeName(IngestOutcome outcome) {
  switch (outcome) {
    case IngestOutcome::kInserted:
      return "inserted";
    case IngestOutcome::kAlreadyPresent:
      return "already-present";
    case IngestOutcome::kConflict:
      return "conflict";
  }
  return "?";
}

bool IsPostgresUrl(std::string_view url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

StatusOr<std::vector<boost::json::object>> Store::Series(const std::string& series_id) {
  if (series_id.empty()) {
    return Status::InvalidArgument("Series: series_id is empty; pass a record's series_id");
  }
  RecordFilter filter;
  filter.series_id = series_id;
  filter.order = RecordFilter::Order::kBuildDate;
  return Query(filter);
}

StatusOr<std::unique_ptr<Store>> Open(const std::string& url) {
  if (IsPostgresUrl(url)) return postgres::OpenPostgresStore(url);
  return sqlite::OpenSqliteStore(url);
}

}  // namespace servebench::store
