// A recipe point that searches (recipe::SloSearchSpec: a native scenario's `search:`,
// docs/search.md "In a recipe"): its settings as search/ takes them. The one mapping
// of the recipe form onto `servebench search`'s: the limits are parsed by
// search::ParseSloLimit and the range judged by search::Validate, as the command's
// flags are, and each probe's load is the point's (BenchSettingsFor) at the probed
// value. The executor runs it on the session's warm server (LoadBackend::Search) and
// keeps its records as the command does (search::BuildSearchRecords). Pure.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "recipe/point.h"
#include "run/run_settings.h"
#include "search/search_settings.h"

namespace servebench::run {

// The search of `point` (point.load.search set) against `base_url`. Fails with what
// search/ refuses, in its words (naming `servebench search`'s flag) and the recipe key;
// `fields` then holds the recipe keys it is about, nearest first, as paths below the
// recipe ("scenarios[0].search.slo[1]", "load.request_rate_per_s"), for locating it.
StatusOr<search::SearchSettings> SearchSettingsFor(const recipe::Point& point,
                                                   const RunSettings& settings,
                                                   const std::string& base_url,
                                                   std::vector<std::string>* fields = nullptr);

// One line for --dry-run and the point's log: what varies over what range, the limits,
// the repeats and the prompts of each probe.
std::string DescribeSearch(const recipe::Point& point, const search::SearchSettings& settings);

}  // namespace servebench::run
