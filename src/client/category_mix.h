// The realised category mix of a speed_bench / spec_bench run (servebench.category_mix
// in the result, docs/bench.md "SPEED-Bench and Spec-Bench"): which file, subset and
// category filter the prompts came from, and per category how many measured requests
// were sent and completed, with the mean prompt and output tokens of the completed
// ones. Acceptance is the run's (metrics.md §7): the server's counters do not split
// by request, so there is no per-category acceptance here. Pure.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "client/client_settings.h"
#include "client/dataset.h"
#include "metrics/request_record.h"

namespace servebench::client {

// `category_of` maps a measured request's index to its prompt's category; `prompts`
// holds the file's row counts. Categories are listed by name.
boost::json::object CategoryMixJson(const BenchSettings& settings, const PromptSet& prompts,
                                    const std::vector<std::string>& category_of,
                                    const std::vector<metrics::RequestRecord>& records);

}  // namespace servebench::client
