// Validity rules of a load run (metrics.md §8). A run that breaks a rule is stored
// as invalid with its reason codes; warnings are reported but keep it valid.
#pragma once

#include <string>
#include <vector>

namespace servebench::metrics {

struct ValidityIssue {
  std::string code;    // "failed_requests", "incomplete", "short_outputs", ...
  std::string detail;  // one human line with the numbers
  bool warning = false;
};

struct Validity {
  std::vector<ValidityIssue> issues;
  // Valid when no issue is an error (warnings only).
  bool valid() const;
  std::vector<std::string> reason_codes() const;  // errors only
  std::vector<std::string> warning_codes() const;
  void Add(std::string code, std::string detail, bool warning = false);
};

}  // namespace servebench::metrics
