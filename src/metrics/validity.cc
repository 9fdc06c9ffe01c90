#include "metrics/validity.h"

namespace servebench::metrics {

bool Validity::valid() const {
  for (const ValidityIssue& i : issues) {
    if (!i.warning) return false;
  }
  return true;
}

std::vector<std::string> Validity::reason_codes() const {
  std::vector<std::string> out;
  for (const ValidityIssue& i : issues) {
    if (!i.warning) out.push_back(i.code);
  }
  return out;
}

std::vector<std::string> Validity::warning_codes() const {
  std::vector<std::string> out;
  for (const ValidityIssue& i : issues) {
    if (i.warning) out.push_back(i.code);
  }
  return out;
}

void Validity::Add(std::string code, std::string detail, bool warning) {
  issues.push_back({std::move(code), std::move(detail), warning});
}

}  // namespace servebench::metrics
