// Human reports of a sweep: a summary table per serve session, and per recipe the
// Pareto frontier of throughput per GPU against interactivity — as terminal text and
// as Markdown (written to <out>/report.md). Every number is a field of the points'
// Records under its metrics/headline.h name, so the report, `results`, `regress` and
// the dashboard call the same number the same. Pure formatting; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "run/executor.h"

namespace servebench::run {

enum class ReportStyle { kTerminal, kMarkdown };

std::string FormatSweepReport(const SweepReport& report, ReportStyle style);

// The headline metrics each session table shows, in column order.
const std::vector<std::string_view>& ReportedMetrics();

// One line: counts per status, server starts used and saved, canary verdict.
std::string FormatSweepSummaryLine(const SweepReport& report);

}  // namespace servebench::run
