#include "run/search_point.h"

#include <fmt/format.h>

#include "run/real_backends.h"
#include "search/slo_limit.h"

namespace servebench::run {
namespace {

// The recipe key a search::Validate message is about, by the flag it names first.
std::string KeyOfMessage(const std::string& message) {
  // Longest first: --search-max-probes before --search-max.
  static const std::pair<const char*, const char*> kFlags[] = {
      {"--search-max-probes", "max_probes"},
      {"--search-prompts-per-concurrency", "prompts_per_concurrency"},
      {"--search-resolution", "resolution"},
      {"--search-repeats", "repeats"},
      {"--search-step", "step"},
      {"--search-min", "min"},
      {"--search-max", "max"},
      {"--slo", "slo"},
      {"--request-rate", "request_rate_per_s"}};
  size_t best = std::string::npos;
  std::string key;
  for (const auto& [flag, k] : kFlags) {
    size_t at = message.find(flag);
    if (at != std::string::npos && at < best) best = at, key = k;
  }
  return key;
}

}  // namespace

StatusOr<search::SearchSettings> SearchSettingsFor(const recipe::Point& point,
                                                   const RunSettings& settings,
                                                   const std::string& base_url,
                                                   std::vector<std::string>* fields) {
  recipe::SloSearchSpec q = point.load.search;
  // The loader's paths start with the recipe's name; Locate's are below the recipe.
  if (q.field_path.starts_with(point.recipe + "."))
    q.field_path = q.field_path.substr(point.recipe.size() + 1);
  // "scenarios[0].search" → "scenarios[0]": where the scenario's load keys are.
  const std::string scenario = q.field_path.substr(0, q.field_path.rfind('.'));
  auto fail = [&](const std::string& key, const std::string& message) {
    std::vector<std::string> at;
    if (key == "prompts_per_concurrency" || key == "request_rate_per_s") {
      at = {scenario + "." + key, "load." + key};
    } else if (!key.empty()) {
      at = {q.field_path + "." + key};
    }
    at.push_back(q.field_path);
    if (fields != nullptr) *fields = at;
    std::string shown = key.empty() ? "search" : (at.front().substr(scenario.size() + 1));
    return Status::InvalidArgument(fmt::format("{}: {}", shown, message));
  };
  search::SearchSettings s;
  s.vary = q.vary == "rate" ? search::Vary::kRate : search::Vary::kConcurrency;
  if (s.vary == search::Vary::kRate) s.max = search::kDefaultMaxRate;
  if (q.min) s.min = *q.min;
  if (q.max) s.max = *q.max;
  if (q.step) s.concurrency_step = *q.step;
  if (q.resolution) s.rate_resolution = *q.resolution;
  if (q.repeats) s.repeats = *q.repeats;
  if (q.max_probes) s.max_probes = *q.max_probes;
  for (size_t i = 0; i < q.slos.size(); ++i) {
    StatusOr<search::SloLimit> limit = search::ParseSloLimit(q.slos[i]);
    if (!limit.ok()) return fail(fmt::format("slo[{}]", i), limit.status().message());
    s.slos.push_back(*limit);
  }
  s.bench = BenchSettingsFor(point, settings, base_url, "");
  if (s.vary == search::Vary::kConcurrency) {
    // Every probe fills its slots alike: the scenario's prompts per unit of concurrency,
    // else the run's default; a fixed num_prompts is sent by every probe.
    s.prompts_per_concurrency = point.load.num_prompts > 0 ? 0
                                : point.load.prompts_per_concurrency > 0
                                    ? point.load.prompts_per_concurrency
                                    : settings.default_prompts_per_concurrency;
  } else if (point.load.request_rate_per_s > 0) {
    return fail("request_rate_per_s",
                "is set in a scenario whose search varies the rate; the search sets each "
                "probe's rate (search.min .. search.max)");
  }
  if (Status st = search::Validate(s); !st.ok()) {
    std::string key = KeyOfMessage(st.message());
    return fail(key, st.message() + (key.empty() ? "" : " (`servebench search`'s flag)"));
  }
  return s;
}

std::string DescribeSearch(const recipe::Point& point, const search::SearchSettings& s) {
  const bool conc = s.vary == search::Vary::kConcurrency;
  std::string limits;
  for (const search::SloLimit& l : s.slos) limits += (limits.empty() ? "" : ", ") + l.text;
  std::string out = fmt::format(
      "search: the highest {} meeting {} in {:g} .. {:g} ({} {:g}), repeats {}, at most {} "
      "probes",
      conc ? "concurrency" : "request rate", limits, s.min, s.max, conc ? "step" : "resolution",
      conc ? static_cast<double>(s.concurrency_step) : s.rate_resolution, s.repeats, s.max_probes);
  if (conc) {
    out += s.prompts_per_concurrency > 0
               ? fmt::format(", {} × concurrency prompts per probe", s.prompts_per_concurrency)
               : fmt::format(", {} prompts per probe", s.bench.num_prompts);
  } else {
    out += fmt::format(", {} prompts per probe{}", s.bench.num_prompts,
                       point.load.concurrency > 0
                           ? fmt::format(", at most {} in flight", point.load.concurrency)
                           : "");
  }
  return out;
}

}  // namespace servebench::run
