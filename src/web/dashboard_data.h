// The dashboard's data: everything the page shows, taken from Records' fields
// (record/record.h) so the front end only draws. Three views:
//
//   records   one row per record: identity, configuration label (record/labels.h),
//             simulated and the sim's time scale, status and failure, every headline
//             metric under its metrics/headline.h name (tput_per_gpu is total tokens
//             per GPU, median_intvty tok/s/user, ...)
//   charts    per workload (recipe, model, hardware, ISL/OSL), the tput_per_gpu
//             against median_intvty curve of each configuration on its newest build
//             date with its earlier nights as `history`, and the Pareto frontier over
//             the newest curves (metrics/pareto.h)
//   nightly   when records span more than one build date: the verdict report of the
//             newest night (verdict/, the same rule as `servebench regress`) and each
//             series' history of the judged metrics
//
// Pure: the same records give the same JSON (generated_at aside). Thread-safe.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "record/record.h"

namespace servebench::web {

struct DashboardOptions {
  std::string title = "servebench";
  std::string source;        // where the records came from, shown in the header
  std::string generated_at;  // RFC 3339; empty = now
};

// The JSON the page embeds. A record_id given twice (the store and a folder) counts
// once. InvalidArgument (naming the record) when a record lacks what every record
// has (record_id, series_id, a date).
StatusOr<boost::json::object> BuildDashboardData(const std::vector<record::Record>& records,
                                                 const DashboardOptions& options);

}  // namespace servebench::web
