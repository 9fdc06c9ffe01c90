#include "run/record_sink.h"

#include "record/record_files.h"

namespace servebench::run {

StoreRecordSink::StoreRecordSink(std::string out_dir, std::unique_ptr<store::Store> store)
    : out_dir_(std::move(out_dir)), store_(std::move(store)) {}

Status StoreRecordSink::Put(const record::Record& record) {
  StatusOr<std::string> path = record::WriteRecordFile(out_dir_ + "/records", record);
  if (!path.ok()) return path.status().WithContext("writing the record");
  if (store_ == nullptr) return Status::Ok();
  auto outcome = store_->Ingest(record);
  if (!outcome.ok()) {
    return outcome.status().WithContext("record " + *path + " was written but not stored in " +
                                        store_->Describe() + " (run `servebench ingest " +
                                        out_dir_ + "` later)");
  }
  ++ingested_;
  return Status::Ok();
}

StatusOr<std::set<std::string>> StoreRecordSink::OkPointIds(
    const std::vector<std::string>& point_ids) {
  if (store_ == nullptr) return std::set<std::string>{};
  return store_->OkPointIds(point_ids);
}

}  // namespace servebench::run
