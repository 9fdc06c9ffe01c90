#include "run/record_sink.h"

#include <boost/json/serialize.hpp>

#include "common/atomic_file.h"

namespace servebench::run {

StoreRecordSink::StoreRecordSink(std::string out_dir, std::unique_ptr<store::Store> store)
    : out_dir_(std::move(out_dir)), store_(std::move(store)) {}

Status StoreRecordSink::Put(const boost::json::object& record) {
  const boost::json::value* id = record.if_contains("record_id");
  if (id == nullptr || !id->is_string()) return Status::Internal("record without record_id");
  std::string path = out_dir_ + "/records/" + std::string(id->as_string()) + ".json";
  SB_RETURN_IF_ERROR(WriteFileAtomically(path, boost::json::serialize(record) + "\n")
                         .WithContext("writing the record"));
  if (store_ == nullptr) return Status::Ok();
  auto outcome = store_->Ingest(record);
  if (!outcome.ok()) {
    return outcome.status().WithContext("record " + path + " was written but not stored in " +
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
