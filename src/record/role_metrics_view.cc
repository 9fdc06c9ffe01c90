#include "record/role_metrics_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace servebench::record {
namespace {

// prefill, decode, aggregated first (the workers, in start order), then the rest.
int RoleRank(const std::string& role) {
  if (role == "prefill") return 0;
  if (role == "decode") return 1;
  if (role == "aggregated") return 2;
  return 3;
}

// Counts (tokens, bytes, requests) exactly; anything else to 6 significant digits.
std::string Value(double v) {
  if (std::isfinite(v) && std::fabs(v) < 1e15 && std::floor(v) == v)
    return fmt::format("{:.0f}", v);
  return fmt::format("{:.6g}", v);
}

}  // namespace

std::string RoleMetricsTable(const std::vector<RoleMetricsColumn>& columns) {
  std::set<std::pair<int, std::string>> roles;
  std::map<std::string, std::set<std::string>> names;
  for (const RoleMetricsColumn& c : columns) {
    if (c.metrics == nullptr) continue;
    for (const auto& [role, metrics] : *c.metrics) {
      for (const auto& [name, value] : metrics) {
        roles.insert({RoleRank(role), role});
        names[role].insert(name);
      }
    }
  }
  if (roles.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"role", "metric"};
  for (const RoleMetricsColumn& c : columns) header.push_back(c.heading);
  for (const auto& [rank, role] : roles) {
    for (const std::string& name : names[role]) {
      std::vector<std::string> row = {role, name};
      for (const RoleMetricsColumn& c : columns) {
        std::string cell = "-";
        if (c.metrics != nullptr) {
          if (auto r = c.metrics->find(role); r != c.metrics->end()) {
            if (auto m = r->second.find(name); m != r->second.end()) cell = Value(m->second);
          }
        }
        row.push_back(std::move(cell));
      }
      rows.push_back(std::move(row));
    }
  }
  std::vector<size_t> width(header.size());
  for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (size_t i = 0; i < cells.size(); ++i) out += fmt::format(" {:<{}} |", cells[i], width[i]);
    return out + "\n";
  };
  std::string out = line(header);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  out += line(rule);
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace servebench::record
