// Each role's scraped metrics of a serve session's points (Record::role_metrics) as
// people read them: one table, a row per role and metric, a column per point. The one
// view `servebench results show RECORD --role-metrics` and the run report (report.md)
// print, so both call a role's metric the same. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "record/record.h"

namespace servebench::record {

// One column of the table: a heading ("value", "conc 8") and a point's role metrics.
struct RoleMetricsColumn {
  std::string heading;
  const RoleMetrics* metrics = nullptr;
};

// A Markdown table (padded, so it reads in a terminal too): columns role, metric, then
// one per entry of `columns`. Rows are every (role, metric) any column has, roles in a
// session's start order (prefill, decode, aggregated, then the router and any other
// role by name), metrics by name; a cell a column lacks is "-". Whole numbers (counts
// of tokens, bytes, requests) print exactly, others with 6 significant digits
// ("0.00552871"). "" when no column has a metric.
std::string RoleMetricsTable(const std::vector<RoleMetricsColumn>& columns);

}  // namespace servebench::record
