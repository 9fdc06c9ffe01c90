// Builds SeriesHistories from Records (docs/record.md), whether they come from the
// store (store::Store::Query) or from a folder of record JSON files. This is the
// only place that knows the Record's field names; the statistics never see JSON.
// Not thread-safe: one builder per caller.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "verdict/history.h"

namespace servebench::verdict {

// What is read from one record (documented in docs/regression.md):
//   series_id; build.date (else the date of provenance.started_at); build.image
//   (else image); build.commit; status + blocked + failure/blocked reasons;
//   summary.{total_token_throughput, output_throughput} / num_gpus -> tput_per_gpu,
//   output_tput_per_gpu, input_tput_per_gpu; summary.{median,p99}_{ttft,tpot,itl,e2el}_ms;
//   1000 / summary.median_tpot_ms -> median_intvty; summary.failed > 0 -> invalid;
//   summary.servebench.repetitions (or raw_runs: summaries of single repetitions) -> raw runs;
//   evals.tasks (see docs) -> accuracy.
class HistoryBuilder {
 public:
  // Adds one record. InvalidArgument (naming the field) when it lacks series_id or
  // a date; "skipped" records are ignored (they were not run).
  Status Add(const boost::json::object& record);

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

// Every *.json file under `dir` (recursively) that holds a record (an object with
// record_id and series_id); other JSON files are skipped. NotFound if `dir` does
// not exist; InvalidArgument naming the file when one is not valid JSON.
StatusOr<std::vector<boost::json::object>> ReadRecordDir(const std::string& dir);

}  // namespace servebench::verdict
