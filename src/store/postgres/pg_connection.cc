#include "store/postgres/pg_connection.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string_view>

namespace servebench::store::postgres {
namespace {

std::string Trimmed(const char* text) {
  std::string s = text != nullptr ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Maps a failed command to a Status by SQLSTATE class (PostgreSQL appendix A).
Status CommandError(PGconn* conn, PGresult* result, std::string_view what, const std::string& url) {
  std::string detail =
      Trimmed(result != nullptr ? PQresultErrorMessage(result) : PQerrorMessage(conn));
  if (detail.empty()) detail = Trimmed(PQerrorMessage(conn));
  const char* state_c = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  std::string_view state = state_c != nullptr ? state_c : "";
  std::string where = fmt::format("PostgreSQL {}: {}", url, what);
  if (PQstatus(conn) == CONNECTION_BAD || state.starts_with("08") || state.starts_with("57P")) {
    return Status::Unavailable(fmt::format(
        "{}: lost the connection to the server ({}); check that the server is up and retry", where,
        detail));
  }
  if (state == "53100") {
    return Status::DataLoss(fmt::format(
        "{}: the server's disk is full ({}); free space and ingest again", where, detail));
  }
  if (state.starts_with("53") || state == "40001" || state == "40P01" || state == "55P03") {
    return Status::Unavailable(fmt::format("{}: the server is busy ({}); retry", where, detail));
  }
  if (state.starts_with("22")) {
    return Status::InvalidArgument(fmt::format(
        "{}: the server refused a value ({}); PostgreSQL jsonb cannot hold \\u0000 in strings",
        where, detail));
  }
  if (state == "42501") {
    return Status::FailedPrecondition(fmt::format(
        "{}: permission denied ({}); the user needs CREATE, INSERT and SELECT on the database",
        where, detail));
  }
  return Status::Internal(fmt::format("{}: {} (SQLSTATE {})", where, detail, state));
}

}  // namespace

std::string MaskPassword(const std::string& url) {
  std::string out = url;
  size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    size_t start = scheme + 3;
    size_t end = out.find_first_of("/?", start);
    if (end == std::string::npos) end = out.size();
    size_t at = out.rfind('@', end);
    if (at != std::string::npos && at >= start) {
      size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  size_t key = out.find("password=");
  if (key != std::string::npos) {
    size_t value = key + 9;
    size_t end = out.find_first_of("& ", value);
    if (end == std::string::npos) end = out.size();
    out.replace(value, end - value, "***");
  }
  return out;
}

std::string Result::Text(int row, int column) const {
  return std::string(PQgetvalue(result_.get(), row, column),
                     static_cast<size_t>(PQgetlength(result_.get(), row, column)));
}

int Result::Changes() const {
  const char* n = PQcmdTuples(result_.get());
  return n != nullptr && *n != '\0' ? std::atoi(n) : 0;
}

StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& url,
                                                       int connect_timeout_s) {
  std::string masked = MaskPassword(url);
  std::string timeout = std::to_string(connect_timeout_s);
  // connect_timeout first: values from the URL (expanded from dbname) override it.
  const char* keywords[] = {"connect_timeout", "application_name", "dbname", nullptr};
  const char* values[] = {timeout.c_str(), "servebench", url.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) return Status::Internal("PostgreSQL: libpq could not allocate a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string detail = Trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return Status::Unavailable(fmt::format(
        "PostgreSQL {}: cannot connect ({}); check the --db URL, that the server is running "
        "and that it accepts this user",
        masked, detail));
  }
  // Keep server notices (e.g. "relation already exists, skipping") off stderr.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<Connection>(new Connection(conn, std::move(masked)));
}

Connection::~Connection() { PQfinish(conn_); }

StatusOr<Result> Connection::Exec(const std::string& sql, const std::vector<std::string>& params,
                                  std::string_view what) {
  // A broken connection (server restarted, backend terminated) is reset and the
  // command sent once more, but only outside an explicit transaction: there a
  // retry would run the rest of the transaction without its beginning. Commands
  // sent here outside transactions are idempotent (ingest is ON CONFLICT DO NOTHING),
  // so a command that did commit before the break is harmless to repeat.
  for (int attempt = 0;; ++attempt) {
    if (PQstatus(conn_) == CONNECTION_BAD) PQreset(conn_);
    const bool outside_transaction = PQtransactionStatus(conn_) == PQTRANS_IDLE;
    PGresult* raw = nullptr;
    if (params.empty()) {
      raw = PQexec(conn_, sql.c_str());
    } else {
      std::vector<const char*> values;
      values.reserve(params.size());
      for (const auto& p : params) values.push_back(p.c_str());
      raw = PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr,
                         values.data(), nullptr, nullptr, 0);
    }
    Result result(raw);
    ExecStatusType status = raw != nullptr ? PQresultStatus(raw) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    if (attempt == 0 && outside_transaction && PQstatus(conn_) == CONNECTION_BAD) continue;
    return CommandError(conn_, raw, what, masked_url_);
  }
}

}  // namespace servebench::store::postgres
