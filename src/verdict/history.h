// What the verdicts read: one Observation per series per night, independent of
// where it came from (the store, a folder of record JSON, or a synthetic test).
// record_reader.h builds these from Records (docs/record.md). Plain values.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace servebench::verdict {

// The build a night ran: the nightly engine image and commit, and the date.
struct Build {
  std::string date;  // "YYYY-MM-DD" (UTC): the night
  std::string image;
  std::string commit;
};

enum class NightStatus { kOk, kFailed, kInvalid, kBlocked };
std::string_view NightStatusName(NightStatus status);  // "ok", "failed", ...

// One accuracy task's result on one night.
struct AccuracyResult {
  std::string task;  // e.g. "gsm8k"
  double value = 0;  // fraction correct, 0..1
  long n = 0;        // items scored
  // Per-item correctness by doc id, when the eval kept it: enables the paired
  // (McNemar) test; otherwise a two-proportion test is used.
  std::map<std::string, bool> items;
  // Absolute floor from the recipe's eval gate; < 0 when none.
  double floor = -1;
};

struct Observation {
  Build build;
  NightStatus status = NightStatus::kOk;
  std::string reason;  // why failed / invalid / blocked ("" when ok)
  // Judged metric values (metric_catalogue.h names): the median of the night's
  // repetitions.
  std::map<std::string, double> metrics;
  // Raw repetitions per metric, when known (same-night reruns add more).
  std::map<std::string, std::vector<double>> raw_runs;
  std::vector<AccuracyResult> accuracy;
};

// A series: one point identity without the build (record.series_id), and its
// nights, oldest first, at most one Observation per date.
struct SeriesHistory {
  std::string series_id;
  std::string label;  // human name: recipe, model, hardware, ISL/OSL, concurrency
  // Points that differ only in concurrency share a curve (curve_scores.h); empty
  // for series that are not part of a throughput/interactivity curve.
  std::string curve_id;
  std::string curve_label;
  int concurrency = 0;
  std::vector<Observation> nights;
};

}  // namespace servebench::verdict
