#include "run/record.h"

#include "common/version.h"
#include "record/record_builder.h"

namespace servebench::run {

record::Record BuildRecord(const recipe::Point& point, const RunSettings& settings,
                           const record::Provenance& provenance, const PointResult& result) {
  record::Record r = record::RecordOfPoint(point, settings.run_id);
  r.status = result.status;
  r.failure_class = result.failure.failure_class;
  r.failure_reason = result.failure.reason;
  r.interrupted = result.interrupted;
  r.unblocked = point.blocked && result.status == record::RecordStatus::kOk;
  r.build = settings.build;
  if (r.build.image.empty()) r.build.image = point.serve.image;
  r.provenance = provenance;
  r.provenance.servebench_version = kVersion;
  r.provenance.git_revision = kGitRevision;
  if (result.load != nullptr && result.load->completed) {
    record::SetLoadResult(&r, result.load->summary);
    r.invalid_reasons = result.load->invalid_reasons;
  }
  if (result.eval != nullptr && result.eval->ran) record::SetEvals(&r, result.eval->result);
  r.artifacts.engine_log = result.engine_log_path;
  if (result.load != nullptr) {
    r.artifacts.requests = result.load->requests_path;
    r.artifacts.gpu_metrics = result.load->power_samples_path;
    r.artifacts.inferencex_result = result.inferencex_result_path;
    r.artifacts.profile = result.profile_dir;
    r.artifacts.server_metrics = result.load->server_metrics_path;
  }
  r.role_metrics = result.role_metrics;
  return r;
}

}  // namespace servebench::run
