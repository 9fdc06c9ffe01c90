// verdict/: regression verdicts over nightly history (shared/reference/regression.md).
//
// One verdict per series per night. A series is a point's identity without the
// build (record.series_id); its history is one Observation per night
// (history.h), built from Records by HistoryBuilder (record_reader.h) whether they
// come from the store or from a folder of record JSON files.
//
//   Stage 0   refuse invalid data: failed / invalid / blocked nights are never compared
//   Stage 1   nightly gate per metric (nightly_gate.h): baseline of recent valid nights,
//             a floor per metric and a multiple of the measured noise, confirmation
//             before alarm
//   Stage 2   change points over the longer history (change_points.h): the first bad
//             build, and a new baseline segment after a step
//   Curves    throughput per GPU at fixed interactivity and the Pareto AUC
//             (curve_scores.h, curve_history.h), judged like single points
//   Accuracy  floor and paired / binomial test against the last good night
//             (accuracy_gate.h)
//
// Judge (judge.h) combines them into a Report with the statuses regression,
// missing, invalid, blocked, improvement, unblocked, new, unchanged; report.h renders
// it as Markdown, JUnit XML or JSON. Report::ExitCode is kExitRegression (4) on a
// confirmed regression, kExitGateFailed (5) when only an accuracy gate failed.
// Everything here is a pure function of its inputs and thread-safe.
#pragma once

#include "verdict/change_points.h"
#include "verdict/curve_scores.h"
#include "verdict/history.h"
#include "verdict/judge.h"
#include "verdict/metric_catalogue.h"
#include "verdict/nightly_gate.h"
#include "verdict/record_reader.h"
#include "verdict/report.h"
#include "verdict/verdict_settings.h"
