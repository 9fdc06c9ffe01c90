#include "record/record.h"

namespace servebench::record {
namespace {

constexpr RecordStatus kStatuses[] = {RecordStatus::kOk, RecordStatus::kFailed,
                                      RecordStatus::kInvalid, RecordStatus::kBlocked,
                                      RecordStatus::kSkipped};

}  // namespace

std::string_view RecordStatusName(RecordStatus status) {
  switch (status) {
    case RecordStatus::kOk:
      return "ok";
    case RecordStatus::kFailed:
      return "failed";
    case RecordStatus::kInvalid:
      return "invalid";
    case RecordStatus::kBlocked:
      return "blocked";
    case RecordStatus::kSkipped:
      return "skipped";
  }
  return "failed";
}

std::optional<RecordStatus> RecordStatusFromName(std::string_view name) {
  for (RecordStatus s : kStatuses) {
    if (RecordStatusName(s) == name) return s;
  }
  return std::nullopt;
}

metrics::GpuTopology Deployment::gpus() const {
  metrics::GpuTopology g;
  g.num_gpus = num_gpus;
  g.prefill_gpus = prefill_gpus;
  g.decode_gpus = decode_gpus;
  return g;
}

std::string Record::Night() const {
  if (!build.date.empty()) return build.date;
  return provenance.started_at.substr(0, 10);
}

}  // namespace servebench::record
