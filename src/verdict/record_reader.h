// Builds SeriesHistories from Records (record/record.h), whether they come from the
// store (store::Store::Query) or from record files (record/record_files.h). This is
// the one place the verdicts meet a Record; the statistics never see one.
// Not thread-safe: one builder per caller.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "record/record.h"
#include "verdict/history.h"

namespace servebench::verdict {

// What is read from one record (documented in docs/regression.md): series_id; the
// night (Record::Night: build.date, else the day it started); build.image (else
// image) and build.commit; status, blocked and the failure / blocked reasons; every
// headline metric (metrics/headline.h, by its name) and each repetition's as raw runs;
// headline.failed > 0 makes an ok record invalid (failed_requests); the accuracy per
// task.
class HistoryBuilder {
 public:
  // Adds one record. InvalidArgument (naming the record and the field) when it lacks
  // series_id or a night; "skipped" records are ignored (they were not run).
  Status Add(const record::Record& record);

  // The histories, one per series_id, nights oldest first. Several records of one
  // series on one date are merged: metric values are the median over the ok
  // records and every repetition becomes a raw run (a same-night rerun).
  std::vector<SeriesHistory> Finish() const;

  size_t records() const { return records_; }

 private:
  struct Entry {
    SeriesHistory meta;
    std::map<std::string, std::vector<Observation>> by_date;
  };
  std::map<std::string, Entry> series_;
  size_t records_ = 0;
};

}  // namespace servebench::verdict
