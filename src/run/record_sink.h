// StoreRecordSink: where `servebench run` puts each Record. The record is first
// written atomically as <out>/records/<record_id>.json (so nothing measured is lost
// if the database is down or the disk fills later), then ingested into the store.
// An ingest failure is reported but the file stays: `servebench ingest <out>` picks
// it up later. Not thread-safe (the executor is single-threaded).
#pragma once

#include <memory>
#include <string>

#include "run/backends.h"
#include "store/store.h"

namespace servebench::run {

class StoreRecordSink final : public RecordSink {
 public:
  // `store` may be null: files only.
  StoreRecordSink(std::string out_dir, std::unique_ptr<store::Store> store);

  Status Put(const record::Record& record) override;
  StatusOr<std::set<std::string>> OkPointIds(const std::vector<std::string>& point_ids) override;

  int ingested() const { return ingested_; }

 private:
  std::string out_dir_;
  std::unique_ptr<store::Store> store_;
  int ingested_ = 0;
};

}  // namespace servebench::run
