#include "store/store.h"

#include <fmt/format.h>

#include <cctype>

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

StatusOr<std::vector<record::Record>> Store::Series(const std::string& series_id) {
  if (series_id.empty()) {
    return Status::InvalidArgument("Series: series_id is empty; pass a record's series_id");
  }
  RecordFilter filter;
  filter.series_id = series_id;
  filter.order = RecordFilter::Order::kBuildDate;
  return Query(filter);
}

std::string SqlitePathOf(std::string_view url) {
  if (IsPostgresUrl(url)) return "";
  if (url.starts_with("sqlite:")) {
    url.remove_prefix(7);
    if (url.starts_with("//")) url.remove_prefix(2);  // sqlite:///abs/path, sqlite://rel
  }
  return std::string(url);
}

Status CheckStoreUrl(std::string_view url) {
  if (url.empty() || IsPostgresUrl(url)) return Status::Ok();
  if (url.starts_with("sqlite:")) {
    if (SqlitePathOf(url).empty()) {
      return Status::InvalidArgument(
          fmt::format("--db {}: no file after sqlite:; write sqlite:PATH or just PATH", url));
    }
    return Status::Ok();
  }
  // "scheme:" as RFC 3986 spells it; a path with a colon later on ("./a:b.db") is a path.
  size_t colon = url.find(':');
  bool scheme = colon != std::string_view::npos && colon > 0 &&
                std::isalpha(static_cast<unsigned char>(url[0]));
  for (size_t i = 1; scheme && i < colon; ++i) {
    char c = url[i];
    scheme = std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  }
  if (!scheme) return Status::Ok();
  std::string_view name = url.substr(0, colon);
  std::string hint;
  if (name.starts_with("postg") || name.starts_with("pg") || name == "psql") {
    hint = "; did you mean postgresql://?";
  }
  return Status::InvalidArgument(fmt::format(
      "--db {}: scheme '{}:' is not a store servebench can open{}; give a SQLite file path "
      "(servebench.db, sqlite:PATH) or postgresql://user@host:5432/db (postgres:// works too); "
      "a file whose name has a colon is written ./{}",
      url, name, hint, url));
}

StatusOr<std::unique_ptr<Store>> Open(const std::string& url) {
  SB_RETURN_IF_ERROR(CheckStoreUrl(url));
  if (url.empty()) return Status::InvalidArgument("--db is empty: give a SQLite path or a URL");
  if (IsPostgresUrl(url)) return postgres::OpenPostgresStore(url);
  return sqlite::OpenSqliteStore(SqlitePathOf(url));
}

}  // namespace servebench::store
