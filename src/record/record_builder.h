// Building a Record: what a point's identity and deployment put in it, and what a
// load run's result and an eval's output add. run/ calls these for every point it
// attempts (it decides the status and the failure); the schema-1 migration calls the
// same functions, so an old record reads exactly as the current writer would write it.
// Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "metrics/headline.h"
#include "recipe/point.h"
#include "record/record.h"

namespace servebench::record {

// sha256(point_id + "/" + run_id): one record per point per invocation.
std::string RecordId(const std::string& point_id, const std::string& run_id);

// The point's identity without the build under test (the engine image, the sim's
// build-slowdown stand-in) and without where its recipe file lives: what
// `servebench regress` follows from night to night.
std::string SeriesId(const recipe::Point& point);

// The GPUs behind `serve` (metrics.md §6): a serve session of several processes by
// role, P and D as its topology counts them (recipe/topology.h, disagg.md §3), else
// tp × pp × pcp on one node.
metrics::GpuTopology GpuTopologyOf(const recipe::ServeSpec& serve);

// The record's deployment fields of `serve`, GPU counts included.
Deployment DeploymentOf(const recipe::ServeSpec& serve);

// Status from the outcome, applying the blocked rule: a blocked point that fails or
// breaks a validity rule is recorded as blocked (never failed); one that passes is
// ok (and `unblocked`).
RecordStatus DecideStatus(bool blocked, bool failed, bool invalid);

// A record of `point` in run `run_id`: identity, what ran (deployment included), the
// point itself and its blocked state. Status, failure, build, provenance and the
// measurements are the caller's to set.
Record RecordOfPoint(const recipe::Point& point, const std::string& run_id);

// Keeps `summary` (the load run's vllm-compatible result, run/aggregate.h's median
// when repeated) and derives the headline from it with the record's GPU topology, and
// one headline per raw run under summary.servebench.repetitions.
void SetLoadResult(Record* record, boost::json::object summary);

// Keeps `evals` (eval results and gate verdicts) and derives the per-task accuracy.
void SetEvals(Record* record, boost::json::object evals);

// The accuracy results in an eval output: evals.tasks ([{task, accuracy|value, n,
// floor?, items?}] or an object keyed by task), or lm-eval results JSON embedded as
// is or under a key (run/ writes evals.gsm8k = the results JSON; its
// "exact_match,flexible-extract", else strict-match, else acc,none, and
// n-samples.<task>.effective).
std::vector<TaskAccuracy> AccuracyFromEvals(const boost::json::object& evals);

}  // namespace servebench::record
