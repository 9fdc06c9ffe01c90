// How a run's failed requests are told to people, in one place for every output
// (bench's terminal table, run's point line, the sweep report's failure column):
// per FailureKind the count and the first request's error message. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "metrics/run_summary.h"

namespace servebench::metrics {

// "19 read, 2 http_status" (most frequent first); "" when nothing failed.
std::string FailureCounts(const RunSummary& summary);

// Per kind, most frequent first: "19 read (connection closed by the server ...)".
std::vector<std::string> FailureLines(const RunSummary& summary, size_t max_message_chars = 160);

// "19 of 40 requests failed: 19 read (connection closed by the server ...); 2
// http_status (HTTP 400: ...)", each message cut to `max_message_chars`; "" when
// nothing failed.
std::string FailureSummary(const RunSummary& summary, size_t max_message_chars = 160);

}  // namespace servebench::metrics
