// The names people read for a record's configuration, workload and series: one
// definition each, used by the run report, the dashboard and the regress reports, so
// a configuration is called the same everywhere. Extend these (not a copy elsewhere)
// to show more of a configuration. Pure functions; thread-safe.
#pragma once

#include <string>

#include "record/record.h"

namespace servebench::record {

// A configuration's short name: "tp2", "tp8 ep8 dpa", "tp1 eagle3 n3".
std::string ConfigLabel(const Deployment& deployment);

// What was offered to it: "recipe · model · hardware · 1024/1024" (ISL/OSL when known).
std::string WorkloadLabel(const Record& record);

// One series in a verdict report: "recipe model hardware engine 1024/1024 c8".
std::string SeriesLabel(const Record& record);

// The curve a series belongs to: SeriesLabel without the concurrency.
std::string CurveLabel(const Record& record);

}  // namespace servebench::record
