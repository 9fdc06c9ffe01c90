#include "store/migrations.h"

namespace servebench::store {
namespace {

// Version 1: the records table. Column types differ only where the dialects do:
// PostgreSQL keeps the record as jsonb (queryable with ->, ->>) and also its exact
// text, because jsonb normalises numbers (2.0 would come back as 2) and key order.
constexpr std::string_view kV1Sqlite = R"sql(
CREATE TABLE records (
  record_id     TEXT PRIMARY KEY NOT NULL,
  run_id        TEXT NOT NULL,
  point_id      TEXT NOT NULL,
  session_id    TEXT NOT NULL DEFAULT '',
  series_id     TEXT NOT NULL DEFAULT '',
  recipe        TEXT NOT NULL,
  engine        TEXT NOT NULL,
  model         TEXT NOT NULL,
  hardware      TEXT NOT NULL DEFAULT '',
  "precision"   TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL,
  failure_class TEXT NOT NULL DEFAULT '',
  concurrency   INTEGER,
  build_date    TEXT NOT NULL DEFAULT '',
  build_commit  TEXT NOT NULL DEFAULT '',
  build_image   TEXT NOT NULL DEFAULT '',
  started_at    TEXT NOT NULL,
  ended_at      TEXT NOT NULL DEFAULT '',
  ingested_at   TEXT NOT NULL,
  record_json   TEXT NOT NULL CHECK (json_valid(record_json))
);
)sql";

constexpr std::string_view kV1Postgres = R"sql(
CREATE TABLE records (
  record_id     TEXT PRIMARY KEY NOT NULL,
  run_id        TEXT NOT NULL,
  point_id      TEXT NOT NULL,
  session_id    TEXT NOT NULL DEFAULT '',
  series_id     TEXT NOT NULL DEFAULT '',
  recipe        TEXT NOT NULL,
  engine        TEXT NOT NULL,
  model         TEXT NOT NULL,
  hardware      TEXT NOT NULL DEFAULT '',
  "precision"   TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL,
  failure_class TEXT NOT NULL DEFAULT '',
  concurrency   BIGINT,
  build_date    TEXT NOT NULL DEFAULT '',
  build_commit  TEXT NOT NULL DEFAULT '',
  build_image   TEXT NOT NULL DEFAULT '',
  started_at    TEXT NOT NULL,
  ended_at      TEXT NOT NULL DEFAULT '',
  ingested_at   TEXT NOT NULL,
  record_json   JSONB NOT NULL,
  record_text   TEXT NOT NULL
);
)sql";

// The same index set in both dialects (record_id is the primary key). The series
// index serves the regression history: one series, ordered by build date.
constexpr std::string_view kV1Indexes = R"sql(
CREATE INDEX records_run_id ON records (run_id);
CREATE INDEX records_point_id ON records (point_id);
CREATE INDEX records_session_id ON records (session_id);
CREATE INDEX records_series_build ON records (series_id, build_date, started_at);
CREATE INDEX records_recipe ON records (recipe);
CREATE INDEX records_engine ON records (engine);
CREATE INDEX records_model ON records (model);
CREATE INDEX records_hardware ON records (hardware);
CREATE INDEX records_precision ON records ("precision");
CREATE INDEX records_status ON records (status);
CREATE INDEX records_concurrency ON records (concurrency);
CREATE INDEX records_build_date ON records (build_date);
CREATE INDEX records_build_commit ON records (build_commit);
CREATE INDEX records_build_image ON records (build_image);
CREATE INDEX records_started_at ON records (started_at);
)sql";

}  // namespace

const std::vector<Migration>& Migrations() {
  static const std::vector<Migration> kMigrations = {
      {1, "records table with indexed identity columns and the whole record JSON",
       std::string(kV1Sqlite) + std::string(kV1Indexes),
       std::string(kV1Postgres) + std::string(kV1Indexes)},
  };
  return kMigrations;
}

}  // namespace servebench::store
