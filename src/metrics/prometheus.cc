#include "metrics/prometheus.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace servebench::metrics {
namespace {

bool IsNameChar(char c, bool first) {
  bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return alpha || (!first && c >= '0' && c <= '9');
}

void SkipSpaces(std::string_view s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

std::optional<double> ParseValue(std::string_view token) {
  if (token == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (token == "+Inf" || token == "Inf") return std::numeric_limits<double>::infinity();
  if (token == "-Inf") return -std::numeric_limits<double>::infinity();
  std::string copy(token);
  char* end = nullptr;
  double v = std::strtod(copy.c_str(), &end);
  if (copy.empty() || end != copy.c_str() + copy.size()) return std::nullopt;
  return v;
}

// Parses `{a="x",b="y"}` starting at s[i] == '{'; leaves i after the '}'.
bool ParseLabels(std::string_view s, size_t& i, std::map<std::string, std::string>& labels) {
  ++i;  // '{'
  while (true) {
    SkipSpaces(s, i);
    if (i < s.size() && s[i] == '}') {
      ++i;
      return true;
    }
    size_t start = i;
    while (i < s.size() && IsNameChar(s[i], i == start)) ++i;
    if (i == start) return false;
    std::string key(s.substr(start, i - start));
    SkipSpaces(s, i);
    if (i >= s.size() || s[i] != '=') return false;
    ++i;
    SkipSpaces(s, i);
    if (i >= s.size() || s[i] != '"') return false;
    ++i;
    std::string value;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) {
        ++i;
        value.push_back(s[i] == 'n' ? '\n' : s[i]);
      } else {
        value.push_back(s[i]);
      }
      ++i;
    }
    if (i >= s.size()) return false;
    ++i;  // closing quote
    labels[key] = std::move(value);
    SkipSpaces(s, i);
    if (i < s.size() && s[i] == ',') ++i;
  }
}

}  // namespace

StatusOr<std::vector<PromSample>> ParsePrometheusText(std::string_view text) {
  std::vector<PromSample> out;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t i = 0;
    SkipSpaces(line, i);
    if (i >= line.size() || line[i] == '#') {
      if (eol == text.size()) break;
      continue;
    }
    PromSample sample;
    size_t start = i;
    while (i < line.size() && IsNameChar(line[i], i == start)) ++i;
    sample.name = std::string(line.substr(start, i - start));
    bool ok = !sample.name.empty();
    if (ok && i < line.size() && line[i] == '{') ok = ParseLabels(line, i, sample.labels);
    SkipSpaces(line, i);
    size_t vstart = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    std::optional<double> value;
    if (ok) value = ParseValue(line.substr(vstart, i - vstart));
    if (!value) {
      return Status::InvalidArgument(fmt::format(
          "Prometheus text line {}: '{}' is not `name{{labels}} value`; is the metrics URL "
          "the server's /metrics endpoint?",
          line_no, line.substr(0, 120)));
    }
    sample.value = *value;
    out.push_back(std::move(sample));
    if (eol == text.size()) break;
  }
  return out;
}

SpecCounters ExtractSpecCounters(const std::vector<PromSample>& samples) {
  for (std::string_view prefix : {"vllm:", "llamacpp:"}) {
    SpecCounters c;
    std::string drafts = fmt::format("{}spec_decode_num_drafts_total", prefix);
    std::string draft_tokens = fmt::format("{}spec_decode_num_draft_tokens_total", prefix);
    std::string accepted = fmt::format("{}spec_decode_num_accepted_tokens_total", prefix);
    std::string per_pos = fmt::format("{}spec_decode_num_accepted_tokens_per_pos_total", prefix);
    for (const PromSample& s : samples) {
      if (s.name == drafts) {
        c.present = true;
        c.num_drafts += s.value;
      } else if (s.name == draft_tokens) {
        c.num_draft_tokens += s.value;
      } else if (s.name == accepted) {
        c.num_accepted_tokens += s.value;
      } else if (s.name == per_pos) {
        auto it = s.labels.find("position");
        if (it == s.labels.end()) continue;
        int position = std::atoi(it->second.c_str());
        if (position < 0 || position > 4096) continue;
        c.accepted_per_position[position] += s.value;
      }
    }
    if (c.present) return c;
  }
  return {};
}

SpecAcceptance ComputeSpecAcceptance(const SpecCounters& before, const SpecCounters& after) {
  SpecAcceptance a;
  a.delta_drafts = after.num_drafts - before.num_drafts;
  a.delta_draft_tokens = after.num_draft_tokens - before.num_draft_tokens;
  a.delta_accepted = after.num_accepted_tokens - before.num_accepted_tokens;
  int max_pos = -1;
  for (const auto& [pos, v] : after.accepted_per_position) max_pos = std::max(max_pos, pos);
  for (int pos = 0; pos <= max_pos; ++pos) {
    double b = before.accepted_per_position.count(pos) ? before.accepted_per_position.at(pos) : 0;
    double v = after.accepted_per_position.count(pos) ? after.accepted_per_position.at(pos) : 0;
    a.delta_accepted_per_position.push_back(v - b);
  }
  if (a.delta_drafts > 0 && a.delta_draft_tokens > 0) {
    a.acceptance_length = 1.0 + a.delta_accepted / a.delta_drafts;
    a.acceptance_rate = a.delta_accepted / a.delta_draft_tokens;
    for (double d : a.delta_accepted_per_position) a.per_position.push_back(d / a.delta_drafts);
  }
  return a;
}

LagHistogramCounts ExtractServerLag(const std::vector<PromSample>& samples) {
  LagHistogramCounts c;
  for (const PromSample& s : samples) {
    if (s.name != "vllm:sim_step_lag_seconds_bucket") continue;
    auto it = s.labels.find("le");
    if (it == s.labels.end()) continue;
    double le = it->second == "+Inf" ? std::numeric_limits<double>::infinity()
                                     : std::strtod(it->second.c_str(), nullptr);
    c.present = true;
    c.buckets[le] += s.value;
  }
  return c;
}

std::optional<ServerLag> ComputeServerLag(const LagHistogramCounts& before,
                                          const LagHistogramCounts& after) {
  if (!before.present || !after.present) return std::nullopt;
  // Per-bucket counts of the run: cumulative after − cumulative before.
  std::vector<std::pair<double, double>> cum;  // (le, cumulative in the run)
  for (const auto& [le, count] : after.buckets) {
    auto b = before.buckets.find(le);
    cum.emplace_back(le, count - (b == before.buckets.end() ? 0 : b->second));
  }
  if (cum.empty() || cum.back().second <= 0) return std::nullopt;
  ServerLag lag;
  lag.steps = cum.back().second;
  const double rank = 0.99 * lag.steps;
  double prev_le = 0, prev_count = 0;
  for (const auto& [le, count] : cum) {
    if (count >= rank) {
      if (std::isinf(le)) {
        lag.p99_ms = prev_le * 1e3;
      } else {
        double in_bucket = count - prev_count;
        double frac = in_bucket > 0 ? (rank - prev_count) / in_bucket : 1.0;
        lag.p99_ms = (prev_le + frac * (le - prev_le)) * 1e3;
      }
      break;
    }
    prev_le = std::isinf(le) ? prev_le : le;
    prev_count = count;
  }
  for (const auto& [le, count] : cum) {
    if (le == 0.001) lag.steps_late_1ms = lag.steps - count;
  }
  return lag;
}

}  // namespace servebench::metrics
