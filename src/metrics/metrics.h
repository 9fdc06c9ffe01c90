// metrics/: the one implementation of servebench's metric definitions
// (shared reference metrics.md). Input: RequestRecords from client/ plus Prometheus
// scrapes; output: RunSummary and the vllm-bench-compatible result JSON.
//
//   RunSummary s = ComputeRunSummary(records, inputs);
//   boost::json::object result = BuildResultJson(s, header, records);
//   bool ok = s.validity.valid();
#pragma once

#include "metrics/failure_summary.h"
#include "metrics/percentile.h"
#include "metrics/prometheus.h"
#include "metrics/request_record.h"
#include "metrics/result_writer.h"
#include "metrics/run_summary.h"
#include "metrics/validity.h"
