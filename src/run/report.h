// Human reports of a sweep: a summary table per serve session, and per recipe the
// Pareto frontier of throughput per GPU against interactivity — as terminal text
// and as Markdown (written to <out>/report.md). Pure formatting; thread-safe.
#pragma once

#include <string>

#include "run/executor.h"

namespace servebench::run {

enum class ReportStyle { kTerminal, kMarkdown };

std::string FormatSweepReport(const SweepReport& report, ReportStyle style);

// A configuration's short name in reports and the dashboard: "tp2", "tp8 ep8 dpa",
// "tp1 eagle3 n3".
std::string ConfigLabel(const recipe::Point& point);

// One line: counts per status, server starts used and saved, canary verdict.
std::string FormatSweepSummaryLine(const SweepReport& report);

}  // namespace servebench::run
