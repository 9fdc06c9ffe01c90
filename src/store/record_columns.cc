#include "store/record_columns.h"

namespace servebench::store {

RecordColumns ColumnsOf(const record::Record& r) {
  RecordColumns c;
  c.record_id = r.record_id;
  c.run_id = r.run_id;
  c.point_id = r.point_id;
  c.session_id = r.session_id;
  c.series_id = r.series_id;
  c.recipe = r.recipe;
  c.engine = r.engine;
  c.model = r.model;
  c.hardware = r.hardware;
  c.precision = r.precision;
  c.status = std::string(record::RecordStatusName(r.status));
  c.failure_class = r.failure_class.name();
  c.concurrency = r.concurrency;
  c.build_date = r.build.date;
  c.build_commit = r.build.commit;
  c.build_image = r.build.image;
  c.started_at = r.provenance.started_at;
  c.ended_at = r.provenance.ended_at;
  return c;
}

}  // namespace servebench::store
