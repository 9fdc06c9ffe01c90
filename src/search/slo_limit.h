// SloLimit: one `servebench search --slo` limit, "<stat><=<value>" with the stat named
// as metrics/stat_selector.h names it (in ms), e.g. "ttft_p99_ms<=500". A probe meets
// the SLO when every limit holds on its RunSummary. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "metrics/run_summary.h"
#include "metrics/stat_selector.h"

namespace servebench::search {

struct SloLimit {
  metrics::StatSelector stat;
  double max_ms = 0;  // the statistic must be <= this
  std::string text;   // as given, for people
};

// Fails naming the flag, the text and the allowed form.
StatusOr<SloLimit> ParseSloLimit(std::string_view text);

// One limit evaluated on one run.
struct SloCheck {
  std::string stat;             // "ttft_p99_ms"
  std::optional<double> value;  // nullopt: no successful request to measure
  double max_ms = 0;
  bool met = false;  // a missing value never meets a limit
};

std::vector<SloCheck> CheckSlos(const metrics::RunSummary& summary,
                                const std::vector<SloLimit>& limits);

}  // namespace servebench::search
