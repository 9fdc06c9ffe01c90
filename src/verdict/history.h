// What the verdicts read: one Observation per series per night, independent of
// where it came from (the store, a folder of record files, or a synthetic test).
// record_reader.h builds these from Records (record/record.h). Plain values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "record/record.h"

namespace servebench::verdict {

// The build a night ran: the nightly engine image and commit, and the date
// ("YYYY-MM-DD", UTC: the night).
using Build = record::Build;

enum class NightStatus { kOk, kFailed, kInvalid, kBlocked };
std::string_view NightStatusName(NightStatus status);  // "ok", "failed", ...

// One accuracy task's result on one night. Per-item results enable the paired
// (McNemar) test; otherwise a two-proportion test is used.
using AccuracyResult = record::TaskAccuracy;

struct Observation {
  Build build;
  NightStatus status = NightStatus::kOk;
  std::string reason;  // why failed / invalid / blocked ("" when ok)
  // The night's headline metrics by their metrics/headline.h names (the catalogue,
  // metric_catalogue.h, says which are judged): the median of the night's repetitions.
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
