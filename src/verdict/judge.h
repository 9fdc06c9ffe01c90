// One verdict per series per night: Stage 0 (refuse invalid data), coverage
// (missing, blocked, unblocked), Stage 1 gates per metric, Stage 2 change points,
// per-curve scores and accuracy gates, combined into a Report. Pure function of
// the histories; thread-safe.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "verdict/change_points.h"
#include "verdict/history.h"
#include "verdict/nightly_gate.h"
#include "verdict/verdict_settings.h"

namespace servebench::verdict {

// The statuses of issue 7, worst first (the report's sort order).
enum class Verdict {
  kRegression,   // confirmed worse (or failed after passing before): exit 4 (5 for a gate)
  kMissing,      // expected (recipes, or reported recently) but not reported tonight
  kInvalid,      // refused by Stage 0 / validity rules: never compared
  kBlocked,      // a known-blocked series: its failures are expected
  kImprovement,  // confirmed better
  kUnblocked,    // passed tonight after being blocked
  kNew,          // nothing (or too little) to compare against: never green
  kUnchanged,    // within noise
};
std::string_view VerdictName(Verdict verdict);  // "regression", ...

// A Stage 2 change point, attributed to builds.
struct ChangePointReport {
  std::string metric;
  Build first_bad;  // the night the new level starts
  Build last_good;  // the night before it
  double change_rel = 0;
  double worse_rel = 0;  // signed so negative is worse
  double p = 1;
};

struct SeriesVerdict {
  std::string series_id;
  std::string label;
  std::string kind = "point";  // "point" or "curve"
  Verdict verdict = Verdict::kNew;
  std::string note;  // reason / explanation, one line
  Build build;       // tonight's build (empty when missing)
  std::vector<MetricVerdict> metrics;
  std::vector<ChangePointReport> change_points;
  // Worst counted worsening, as a positive fraction (0 when none): sorts the report.
  double severity = 0;

  // A regression whose only counted worsening is an accuracy gate (a task below its
  // floor), not a comparison with history.
  bool GateFailedOnly() const;
};

struct Report {
  std::string date;                     // the night judged
  std::vector<SeriesVerdict> verdicts;  // worst first
  size_t Count(Verdict verdict) const;
  // common/exit_codes.h: kExitRegression (4) when any series has a confirmed
  // regression against its history (a failure after passing counts); else
  // kExitGateFailed (5) when a series regressed only by an accuracy gate (a task below
  // its floor); else kExitOk. Never kExitInvalidInput: a typo is not a slowdown.
  int ExitCode() const;
};

// Judges the night `date` ("YYYY-MM-DD"; empty = the latest night in the data).
// `expected` are series ids the recipes expect; a series that reported on any of
// the previous settings.missing_lookback_nights nights is expected as well.
// InvalidArgument when `date` is given and no record is from that night.
StatusOr<Report> Judge(const std::vector<SeriesHistory>& histories,
                       const std::set<std::string>& expected, const std::string& date,
                       const VerdictSettings& settings);

// Judges one series on `date` (it has an observation then); the building block of
// Judge, exposed for tests and the Monte Carlo bench.
SeriesVerdict JudgeSeries(const SeriesHistory& history, const std::string& date,
                          const VerdictSettings& settings);

}  // namespace servebench::verdict
