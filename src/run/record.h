// The Record of one attempted point (record/record.h): what run/ decides — status,
// failure, the build under test, provenance — on top of what record/ builds from the
// point and the run's outputs (record/record_builder.h). Pure functions; thread-safe.
#pragma once

#include <string>

#include "recipe/point.h"
#include "record/record.h"
#include "run/backends.h"
#include "run/run_settings.h"

namespace servebench::run {

// What happened at one point.
struct PointResult {
  record::RecordStatus status = record::RecordStatus::kSkipped;
  Failure failure;                    // empty when ok
  const LoadOutcome* load = nullptr;  // null when the load never ran
  const EvalOutcome* eval = nullptr;  // null when no eval ran
  std::string engine_log_path;
  std::string inferencex_result_path;  // InferenceX's result file of the point, "" = none
  std::string
      profile_dir;  // --profile: the engine's profiler folder or root (LiveEngine), "" = none
  bool interrupted = false;
  // A serve session of several processes: each role's metrics over the load run
  // (role_metrics.h); empty otherwise.
  record::RoleMetrics role_metrics;
};

// The record of `point` as run `settings.run_id` attempted it. `provenance` holds what
// the executor observed (host, engine version, times); the servebench version and
// git revision are this binary's.
record::Record BuildRecord(const recipe::Point& point, const RunSettings& settings,
                           const record::Provenance& provenance, const PointResult& result);

}  // namespace servebench::run
