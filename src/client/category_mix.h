// The realised category mix of a speed_bench / spec_bench run (servebench.category_mix
// in the result, docs/bench.md "SPEED-Bench and Spec-Bench"): which file, subset and
// category filter the prompts came from, and per category how many measured requests
// were sent and completed, with the mean prompt and output tokens of the completed
// ones. The run's acceptance comes from the server's counters (metrics.md §7), which
// do not split by request; per category there is the request-weighted mean of the
// acceptance lengths the server reported per request (vLLM's
// --per-request-spec-decode-metrics), null when it reported none. Pure.
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
