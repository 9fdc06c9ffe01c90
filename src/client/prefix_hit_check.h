// The server's side of a prefix-cache report (trace replay, prefix pools): the engine's
// hit rate from its counters scraped before and after the measured phase
// (metrics/prefix_cache_counters.h), set beside the rate the workload was built to give,
// and the `prefix_hits_disagree` validity rule when the two differ by more than
// --prefix-hit-tolerance. Pure functions; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string_view>

#include "metrics/prefix_cache_counters.h"
#include "metrics/validity.h"

namespace servebench::client {

struct PrefixCacheSide {
  metrics::PrefixCacheCounters before, after;
};

// What the workload expected, for the comparison and its message.
struct ExpectedHits {
  double rate = 0;                  // hit tokens / prompt tokens the workload should give
  bool sent_prompt_tokens = false;  // the measured phase sent any prompt token
  std::string_view what;            // e.g. "the trace replayed against an infinite cache"
  std::string_view cause;           // why they would differ, e.g. "the engine does not cache"
  // False when the workload cannot predict its hits (live assistant turns): the server's
  // side is still reported, "agree" is null and validity is untouched.
  bool applicable = true;
};

// Sets report["server"] (source, hit_rate, queried and hit tokens, KV usage; null when
// the counters are missing or nothing was queried) and report["agree"] (null likewise).
// An engine that exports the counters but looked nothing up while prompt tokens were
// sent has its prefix cache off: its rate is 0, with a note. Returns the server's rate.
std::optional<double> CompareServerHits(const std::optional<PrefixCacheSide>& server,
                                        const ExpectedHits& expected, double tolerance,
                                        boost::json::object* report, metrics::Validity* validity);

// A fraction rounded to 6 decimals, as every fraction of these reports is written.
boost::json::value HitFraction(double f);

}  // namespace servebench::client
