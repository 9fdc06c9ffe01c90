// Reports of a night's verdicts. Every format lists the series worst first with the
// numbers behind each decision: tonight's value, the baseline, the change, the
// measured noise and the threshold, and the rule that decided.
//   Markdown: for a pull-request comment or a CI annotation.
//   JUnit XML: each series a test case (regression/missing = failure, invalid =
//              error, blocked/new = skipped), for CI test dashboards.
//   JSON: everything, for machines.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "verdict/judge.h"

namespace servebench::verdict {

std::string RenderMarkdown(const Report& report);
std::string RenderJunit(const Report& report);
std::string RenderJson(const Report& report);

}  // namespace servebench::verdict
