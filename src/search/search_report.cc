// SearchResultJson and SearchReport (slo_search.h): the search as JSON and as text.
#include <fmt/format.h>

#include <cmath>

#include "search/slo_search.h"

namespace servebench::search {

namespace json = boost::json;

namespace {

bool IsConcurrency(const SearchSettings& s) { return s.vary == Vary::kConcurrency; }

json::value ValueJson(const SearchSettings& s, std::optional<double> v) {
  if (!v) return nullptr;
  if (IsConcurrency(s)) return std::llround(*v);
  return *v;
}

std::string ValueText(const SearchSettings& s, double v) {
  return IsConcurrency(s) ? fmt::format("{}", std::llround(v)) : fmt::format("{:.4g}", v);
}

}  // namespace

json::object SearchResultJson(const SearchSettings& s, const SearchResult& r) {
  const char* knob = IsConcurrency(s) ? "concurrency" : "request_rate";
  json::object o;
  o[IsConcurrency(s) ? "max_concurrency_at_slo" : "max_request_rate_at_slo"] =
      ValueJson(s, r.boundary);
  o["first_failing"] = ValueJson(s, r.first_failing);
  o["vary"] = knob;
  json::array limits;
  for (const SloLimit& l : s.slos) {
    limits.push_back(json::object{{"stat", l.stat.name}, {"op", "<="}, {"max_ms", l.max_ms}});
  }
  o["limits"] = std::move(limits);
  json::object range{{"min", ValueJson(s, s.min)},
                     {"max", ValueJson(s, s.max)},
                     {"repeats", s.repeats},
                     {"max_probes", s.max_probes}};
  if (IsConcurrency(s)) {
    range["step"] = s.concurrency_step;
  } else {
    range["resolution"] = s.rate_resolution;
  }
  o["range"] = std::move(range);
  o["capped_at_max"] = r.capped_at_max;
  o["non_monotone"] = r.non_monotone;
  o["probe_limit_reached"] = r.probe_limit_reached;
  o["interrupted"] = r.interrupted;
  o["stopped"] = r.stopped.ok() ? json::value(nullptr) : json::value(r.stopped.message());
  o["model"] = s.bench.model;
  json::array probes;
  for (const Probe& p : r.probes) {
    json::object values;
    json::array failed;
    for (const SloCheck& c : p.checks) {
      values[c.stat] = c.value ? json::value(*c.value) : nullptr;
      if (!c.met) failed.emplace_back(c.stat);
    }
    json::array reasons;
    for (const std::string& code : p.reasons) reasons.emplace_back(code);
    probes.push_back(json::object{{knob, ValueJson(s, p.value)},
                                  {"meets_slo", p.meets},
                                  {"valid", p.valid},
                                  {"invalid_reasons", std::move(reasons)},
                                  {"interrupted", p.interrupted},
                                  {"values", std::move(values)},
                                  {"limits_missed", std::move(failed)},
                                  {"result", p.result}});
  }
  o["probes"] = std::move(probes);
  return o;
}

std::string SearchReport(const SearchSettings& s, const SearchResult& r) {
  std::string out = fmt::format("{:>3}  {:>12}", "#", IsConcurrency(s) ? "concurrency" : "req/s");
  for (const SloLimit& l : s.slos) out += fmt::format("  {:>16}", l.text);
  out += "  valid  meets SLO\n";
  int i = 0;
  for (const Probe& p : r.probes) {
    out += fmt::format("{:>3}  {:>12}", ++i, ValueText(s, p.value));
    for (const SloCheck& c : p.checks) {
      out += fmt::format("  {:>16}", c.value ? fmt::format("{:.2f}", *c.value) : "-");
    }
    std::string reasons;
    for (const std::string& code : p.reasons) reasons += (reasons.empty() ? " (" : ", ") + code;
    if (!reasons.empty()) reasons += ")";
    out += fmt::format("  {:>5}  {}{}{}\n", p.valid ? "yes" : "no", p.meets ? "yes" : "no",
                       p.interrupted ? " (interrupted)" : "", reasons);
  }
  std::string limits;
  for (const SloLimit& l : s.slos) limits += (limits.empty() ? "" : ", ") + l.text;
  const char* what = IsConcurrency(s) ? "max concurrency" : "max request rate";
  if (r.boundary) {
    out += fmt::format("{} at SLO ({}): {}", what, limits, ValueText(s, *r.boundary));
    if (r.first_failing)
      out += fmt::format("; {} does not meet it", ValueText(s, *r.first_failing));
    if (r.capped_at_max) out += " (the top of the range: the boundary may be higher)";
  } else {
    out +=
        fmt::format("{} at SLO ({}): none; {} does not meet it", what, limits, ValueText(s, s.min));
  }
  out += "\n";
  if (r.non_monotone) {
    out += "warning: a value above the boundary met the SLO (non-monotone; noisy server?)\n";
  }
  if (r.probe_limit_reached) out += "warning: stopped at --search-max-probes\n";
  if (r.interrupted) out += "interrupted: the answer covers the probes run so far\n";
  if (!r.stopped.ok()) out += "stopped: " + r.stopped.message() + "\n";
  return out;
}

}  // namespace servebench::search
