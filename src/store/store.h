// The results store: every Record (record/record.h) that servebench produced, kept in
// SQLite (default, one file) or PostgreSQL (shared by many machines). This is the
// store's interface; beside it, record_files.h ingests record files (for `ingest`
// and run/). The backends (sqlite/, postgres/) are not included by other modules.
//
// Contract
//   - Records are never overwritten. Ingest is idempotent on record_id: the same
//     record ingested twice gives one row (kAlreadyPresent the second time); a
//     different record with an existing record_id is refused (kConflict), not stored.
//   - Ingest checks the record with the codec first (record/record_json.h); an
//     invalid record is refused with InvalidArgument naming the field, the bad value
//     and the rule. It stores the record's JSON in the current schema.
//   - Query returns the records as ingested: both backends keep the record's exact
//     JSON text (verbatim artefacts keep their key order and number types), read back
//     with the codec — records stored by an earlier release are migrated as they are
//     read (record_json.h), never rewritten in the database.
//   - Failures come back as Status, never as exceptions: a full disk is DataLoss, a
//     database locked for longer than the busy timeout or an unreachable server is
//     Unavailable, a database written by a newer servebench is FailedPrecondition.
//
// Thread-safety: a Store is one connection; use it from one thread at a time. Many
// processes may open the same SQLite file or PostgreSQL database at once.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "record/record.h"

namespace servebench::store {

// What happened to one record given to Ingest.
enum class IngestOutcome {
  kInserted,        // a new row
  kAlreadyPresent,  // the same record was already stored; nothing changed
  kConflict,        // a different record has this record_id; nothing changed
};
std::string_view IngestOutcomeName(IngestOutcome outcome);  // "inserted", ...

// Which records Query returns. Empty strings match anything; set fields are ANDed.
struct RecordFilter {
  std::string record_id;
  std::string run_id;
  std::string point_id;
  std::string series_id;
  std::string recipe;
  std::string engine;
  std::string model;
  std::string hardware;
  std::string status;  // ok | failed | invalid | blocked | skipped
  // provenance.started_at bounds, RFC 3339 UTC ("2026-11-29" or
  // "2026-11-29T20:30:00Z"); compared as text, since inclusive, until exclusive.
  std::string since;
  std::string until;
  enum class Order {
    kStartedAt,  // provenance.started_at, then record_id
    kBuildDate,  // build.date, then started_at, then record_id: a series' history
  };
  Order order = Order::kStartedAt;
  // At most this many records (the first ones in `order`); 0 = all.
  size_t limit = 0;
};

class Store {
 public:
  virtual ~Store() = default;

  // Validates and stores `record`. InvalidArgument if it is not a valid record;
  // DataLoss / Unavailable if the database cannot be written.
  virtual StatusOr<IngestOutcome> Ingest(const record::Record& record) = 0;

  // The records matching `filter`, in `filter.order`. FailedPrecondition naming the
  // record when a stored one does not read (written by a newer servebench).
  virtual StatusOr<std::vector<record::Record>> Query(const RecordFilter& filter) = 0;

  // Of `point_ids`, those that already have a record with status "ok" (in any run):
  // what `servebench run --resume` skips.
  virtual StatusOr<std::set<std::string>> OkPointIds(const std::vector<std::string>& point_ids) = 0;

  // Every record of one series (same point identity, any build), oldest build first:
  // the history the regression verdicts compare against.
  StatusOr<std::vector<record::Record>> Series(const std::string& series_id);

  // The schema version of the open database (migrations.h).
  virtual StatusOr<int> SchemaVersion() = 0;

  // "sqlite:<path>" or the PostgreSQL URL with any password masked; for messages.
  virtual std::string Describe() const = 0;
};

// The environment variable every command reads --db from when the flag is not given.
inline constexpr char kStoreUrlEnv[] = "SERVEBENCH_DB";

// Opens (creating if needed) the store at `url` and migrates its schema to the
// newest version:
//   "postgresql://..." or "postgres://..."  a PostgreSQL database (libpq URL)
//   "sqlite:PATH" or a plain PATH            a SQLite file ("servebench.db")
// InvalidArgument for any other scheme (CheckStoreUrl); Unavailable if the server
// cannot be reached or the file cannot be opened; FailedPrecondition if the database
// schema is newer than this servebench.
StatusOr<std::unique_ptr<Store>> Open(const std::string& url);

// Checks the form of a --db value without touching anything: "" (no store), a
// SQLite path, "sqlite:PATH", or a postgresql:// / postgres:// URL. Any other
// "scheme:" (mysql://, a typo postgre://) is InvalidArgument saying what is accepted.
Status CheckStoreUrl(std::string_view url);

// True if `url` names a PostgreSQL database.
bool IsPostgresUrl(std::string_view url);

// The file of a SQLite --db ("sqlite:" removed); "" for a PostgreSQL URL.
std::string SqlitePathOf(std::string_view url);

}  // namespace servebench::store
