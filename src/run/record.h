// Builds the Record of one attempted point (docs/record.md): identity, provenance,
// status, failure class, the load run's summary, eval results and artifact paths.
// Pure functions; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <string>

#include "recipe/point.h"
#include "run/backends.h"
#include "run/run_settings.h"

namespace servebench::run {

enum class PointStatus { kOk, kFailed, kInvalid, kBlocked, kSkipped };
std::string_view PointStatusName(PointStatus status);

struct Provenance {
  std::string host;
  std::string engine_version;
  std::string started_at;  // RFC 3339 UTC
  std::string ended_at;
};

// What happened at one point.
struct PointResult {
  PointStatus status = PointStatus::kSkipped;
  Failure failure;                    // empty when ok
  const LoadOutcome* load = nullptr;  // null when the load never ran
  const EvalOutcome* eval = nullptr;  // null when no eval ran
  std::string engine_log_path;
  bool interrupted = false;
};

// Status of a point from its outcome, applying the blocked rule: a blocked point
// that fails is recorded as blocked (never failed); one that passes is ok and
// carries "unblocked": true.
PointStatus DecideStatus(const recipe::Point& point, bool failed, bool invalid);

// sha256(point_id + "/" + run_id): one record per point per invocation.
std::string RecordId(const std::string& point_id, const std::string& run_id);

// The point's identity without the build under test (engine image): what
// `servebench regress` follows from night to night.
std::string SeriesId(const recipe::Point& point);

// GPUs a single-node point occupies: tp × pp × pcp (metrics.md §6).
int NumGpus(const recipe::ServeSpec& serve);

boost::json::object BuildRecord(const recipe::Point& point, const RunSettings& settings,
                                const Provenance& provenance, const PointResult& result);

}  // namespace servebench::run
