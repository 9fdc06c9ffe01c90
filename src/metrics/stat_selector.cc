#include "metrics/stat_selector.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <utility>

namespace servebench::metrics {

namespace {

struct NamedSet {
  std::string_view name;
  Stats RunSummary::*stats;
};

// Longest names first: "ttft_from_schedule" must not be read as "ttft".
constexpr std::array<NamedSet, 10> kSets = {{
    {"ttft_from_schedule", &RunSummary::ttft_from_schedule},
    {"e2el_from_schedule", &RunSummary::e2el_from_schedule},
    {"client_queue_time", &RunSummary::client_queue_time},
    {"itl_per_token", &RunSummary::itl_per_token},
    {"issue_delay", &RunSummary::issue_delay},
    {"ttft", &RunSummary::ttft},
    {"ttfo", &RunSummary::ttfo},
    {"tpot", &RunSummary::tpot},
    {"e2el", &RunSummary::e2el},
    {"itl", &RunSummary::itl},
}};

Status Unknown(std::string_view name, std::string_view why) {
  return Status::InvalidArgument(fmt::format(
      "'{}': {}; a statistic is <metric>_<stat>_ms with metric ttft, ttft_from_schedule, ttfo, "
      "tpot, itl, itl_per_token, e2el, e2el_from_schedule, issue_delay or client_queue_time and "
      "stat "
      "mean, median or p<P> (e.g. ttft_p99_ms, tpot_median_ms, e2el_p99.9_ms)",
      name, why));
}

}  // namespace

StatusOr<StatSelector> ParseStatSelector(std::string_view name) {
  constexpr std::string_view kSuffix = "_ms";
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return Unknown(name, "does not end in _ms");
  }
  std::string_view body = name.substr(0, name.size() - kSuffix.size());
  for (const NamedSet& set : kSets) {
    if (body.size() <= set.name.size() + 1 || body.substr(0, set.name.size()) != set.name ||
        body[set.name.size()] != '_') {
      continue;
    }
    std::string_view stat = body.substr(set.name.size() + 1);
    StatSelector s;
    s.name = std::string(name);
    s.metric = std::string(set.name);
    s.stats = set.stats;
    if (stat == "mean") {
      s.kind = StatSelector::Kind::kMean;
      return s;
    }
    if (stat == "median" || stat == "p50") {
      s.kind = StatSelector::Kind::kMedian;
      return s;
    }
    if (stat.size() < 2 || stat[0] != 'p') return Unknown(name, fmt::format("no stat '{}'", stat));
    double p = 0;
    auto [end, ec] = std::from_chars(stat.data() + 1, stat.data() + stat.size(), p);
    if (ec != std::errc() || end != stat.data() + stat.size() || !(p >= 0 && p <= 100)) {
      return Unknown(name, fmt::format("'{}' is not a percentile p0 .. p100", stat));
    }
    s.kind = StatSelector::Kind::kPercentile;
    s.percentile = p;
    return s;
  }
  return Unknown(name, "names no metric");
}

std::optional<double> RequiredPercentile(const StatSelector& s) {
  if (s.kind != StatSelector::Kind::kPercentile) return std::nullopt;
  return s.percentile;
}

std::optional<double> SelectStat(const RunSummary& summary, const StatSelector& s) {
  const Stats& stats = summary.*(s.stats);
  if (stats.empty()) return std::nullopt;
  switch (s.kind) {
    case StatSelector::Kind::kMean:
      return stats.mean;
    case StatSelector::Kind::kMedian:
      return stats.median;
    case StatSelector::Kind::kPercentile:
      return stats.At(s.percentile);
  }
  return std::nullopt;
}

}  // namespace servebench::metrics
