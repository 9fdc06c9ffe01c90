#include "run/agentic_server_metrics.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <boost/json.hpp>
#include <cmath>
#include <ctime>
#include <functional>
#include <map>
#include <set>

#include "metrics/percentile.h"

namespace servebench::run {
namespace json = boost::json;
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         std::string_view(s).substr(s.size() - suffix.size()) == suffix;
}

// One series across the scrapes: (unix ns, value) where the scrape had it.
struct Series {
  std::map<std::string, std::string> labels;
  std::vector<std::pair<int64_t, double>> points;
};

json::object GaugeStats(const std::vector<std::pair<int64_t, double>>& points) {
  std::vector<double> v;
  for (const auto& [t, x] : points)
    if (std::isfinite(x)) v.push_back(x);
  if (v.empty()) return {};
  const std::vector<double> ps = {1, 5, 10, 25, 50, 75, 90, 95, 99};
  const metrics::Stats s = metrics::ComputeStats(v, ps);
  json::object o{{"avg", s.mean}, {"min", s.min}, {"max", s.max}, {"std", s.std}};
  for (size_t i = 0; i < ps.size(); ++i)
    o[fmt::format("p{}", static_cast<int>(ps[i]))] = s.percentile_values[i];
  return o;
}

// A counter's increase over the scrapes: a decrease is a reset, the new value then
// the increase since it.
double Increase(const std::vector<std::pair<int64_t, double>>& points) {
  double total = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    total += points[i].second >= points[i - 1].second ? points[i].second - points[i - 1].second
                                                      : points[i].second;
  }
  return total;
}

double SpanSeconds(const std::vector<std::pair<int64_t, double>>& points) {
  return points.size() > 1 ? static_cast<double>(points.back().first - points.front().first) / 1e9
                           : 0;
}

// A histogram's stats as AIPerf exports them without its buckets: the increase of its
// _count and _sum over the scrapes, their mean and their rates.
json::object HistogramStats(const std::vector<std::pair<int64_t, double>>& sum_points,
                            const std::vector<std::pair<int64_t, double>>& count_points) {
  const double count = Increase(count_points), sum = Increase(sum_points);
  const double span = SpanSeconds(count_points);
  json::object o{{"count", static_cast<int64_t>(std::llround(count))}, {"sum", sum}};
  if (count > 0) o["avg"] = sum / count;
  if (span > 0) {
    o["count_rate"] = count / span;
    o["sum_rate"] = sum / span;
  }
  return o;
}

// A counter's increase over the scrapes (Increase) and its rates between consecutive
// scrapes.
json::object CounterStats(const std::vector<std::pair<int64_t, double>>& points) {
  double total = 0;
  std::vector<double> rates;
  for (size_t i = 1; i < points.size(); ++i) {
    const double delta = points[i].second >= points[i - 1].second
                             ? points[i].second - points[i - 1].second
                             : points[i].second;
    total += delta;
    const double dt = static_cast<double>(points[i].first - points[i - 1].first) / 1e9;
    if (dt > 0) rates.push_back(delta / dt);
  }
  const double duration =
      points.size() > 1 ? static_cast<double>(points.back().first - points.front().first) / 1e9 : 0;
  const double rate = duration > 0 ? total / duration : 0;
  json::object o{{"total", total}, {"rate", rate}};
  if (!rates.empty()) {
    const metrics::Stats s = metrics::ComputeStats(rates, {});
    o["rate_avg"] = rate;  // time-weighted: the increase over the span it took
    o["rate_min"] = s.min;
    o["rate_max"] = s.max;
    o["rate_std"] = s.std;
  }
  return o;
}

std::string IsoTime(int64_t unix_ns) {
  const std::time_t t = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:06d}", fmt::gmtime(t),
                     static_cast<int>(unix_ns % 1'000'000'000 / 1000));
}

// ---- InferenceX's aggregation_common.py over the export ----
using Filter = std::function<bool(const json::object& series)>;

std::optional<double> SeriesStat(const json::object& series,
                                 std::initializer_list<const char*> keys) {
  const json::value* stats = series.if_contains("stats");
  if (stats == nullptr || !stats->is_object()) return std::nullopt;
  for (const char* k : keys) {
    const json::value* v = stats->as_object().if_contains(k);
    if (v != nullptr && v->is_number()) return v->to_number<double>();
  }
  return std::nullopt;
}

// One metric name or several (InferenceX's helpers take `str | list[str]`).
struct Names {
  Names(const char* one) : list{one} {}  // NOLINT: implicit, as the Python's str
  Names(std::initializer_list<std::string> many) : list(many) {}
  explicit Names(std::vector<std::string> many) : list(std::move(many)) {}
  std::vector<std::string> list;
};

// Every series of every metric `names` lists (aggregation_common.metric_series).
template <class F>
void ForSeries(const json::object& metrics, const Names& names, F&& f) {
  for (const std::string& name : names.list) {
    const json::value* m = metrics.if_contains(name);
    if (m == nullptr || !m->is_object()) continue;
    const json::value* series = m->as_object().if_contains("series");
    if (series == nullptr || !series->is_array()) continue;
    for (const json::value& s : series->as_array())
      if (s.is_object()) f(s.as_object());
  }
}

using StatKeys = std::initializer_list<const char*>;
constexpr StatKeys kCounterKeys = {"total", "sum", "max", "avg"};

std::optional<double> SumStat(const json::object& metrics, const Names& names,
                              const Filter& filter = nullptr, StatKeys keys = kCounterKeys) {
  std::optional<double> total;
  ForSeries(metrics, names, [&](const json::object& s) {
    if (filter && !filter(s)) return;
    if (auto v = SeriesStat(s, keys)) total = total.value_or(0) + *v;
  });
  return total;
}

// aggregation_common.gauge_stat(..., combine="avg"): the mean over the series.
std::optional<double> GaugeAvg(const json::object& metrics, const Names& names, StatKeys keys) {
  double sum = 0;
  int n = 0;
  ForSeries(metrics, names, [&](const json::object& s) {
    if (auto v = SeriesStat(s, keys)) {
      sum += *v;
      ++n;
    }
  });
  return n > 0 ? std::optional<double>(sum / n) : std::nullopt;
}

// aggregation_common.sum_by_label: each `label` value of `name`'s series -> the sum of
// their totals; a series without the label is left out.
std::map<std::string, double> SumByLabel(const json::object& metrics, const char* name,
                                         const char* label);

// `key`'s value in `sums`, or nullopt.
std::optional<double> ValueAt(const std::map<std::string, double>& sums, const char* key) {
  auto it = sums.find(key);
  return it == sums.end() ? std::nullopt : std::optional<double>(it->second);
}

// The export's `metrics` object (an empty one when it has none).
const json::object& MetricsOf(const json::object& export_json) {
  static const json::object kEmpty;
  const json::value* m = export_json.if_contains("metrics");
  return m != nullptr && m->is_object() ? m->as_object() : kEmpty;
}

std::optional<double> GaugeMax(const json::object& metrics, const Names& names,
                               const Filter& filter = nullptr) {
  std::optional<double> best;
  ForSeries(metrics, names, [&](const json::object& s) {
    if (filter && !filter(s)) return;
    if (auto v = SeriesStat(s, {"max", "avg", "total"}); v && (!best || *v > *best)) best = *v;
  });
  return best;
}

std::optional<double> Rate(std::optional<double> num, std::optional<double> den) {
  if (!num || !den || *den <= 0) return std::nullopt;
  return *num / *den;
}

std::optional<double> Fraction(std::optional<double> v) {
  if (v && *v > 1.5) return *v / 100.0;
  return v;
}

json::value J(const std::optional<double>& v) { return v ? json::value(*v) : json::value(nullptr); }

json::value CounterInt(const std::optional<double>& v) {
  return v ? json::value(static_cast<int64_t>(std::llround(*v))) : json::value(nullptr);
}

// The cache block's rates and prefix-cache counters, as vllm.py and atom.py fill them.
struct CacheFigures {
  std::optional<double> gpu_rate, cpu_rate, external_rate, overall_rate;
  std::optional<double> hits, queries, external_hits, external_queries;
};

void FillCache(json::object* cache, const CacheFigures& f) {
  (*cache)["gpu_cache_hit_rate"] = J(f.gpu_rate);
  (*cache)["cpu_cache_hit_rate"] = J(f.cpu_rate);
  (*cache)["external_cache_hit_rate"] = J(f.external_rate);
  (*cache)["overall_cache_hit_rate"] = J(f.overall_rate);
  (*cache)["prefix_cache_hits"] = J(f.hits);
  (*cache)["prefix_cache_queries"] = J(f.queries);
  (*cache)["external_prefix_cache_hits"] = J(f.external_hits);
  (*cache)["external_prefix_cache_queries"] = J(f.external_queries);
}

// A token total of the block: the engine's counter when it has one, else the records'
// sum (InferenceX's apply_profile_totals).
json::value TokenTotal(const std::optional<double>& counter, int64_t records_total) {
  return counter ? CounterInt(counter) : json::value(records_total);
}

std::string Label(const json::object& series, const char* key) {
  const json::value* labels = series.if_contains("labels");
  if (labels == nullptr || !labels->is_object()) return "";
  const json::value* v = labels->as_object().if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

std::map<std::string, double> SumByLabel(const json::object& metrics, const char* name,
                                         const char* label) {
  std::map<std::string, double> sums;
  ForSeries(metrics, {name}, [&](const json::object& s) {
    const std::string value = Label(s, label);
    if (value.empty()) return;
    if (auto v = SeriesStat(s, kCounterKeys)) sums[value] += *v;
  });
  return sums;
}

// InferenceX's _source_id: role, endpoint, worker/rank/engine labels.
std::string SourceId(const json::object& series) {
  std::string component = Label(series, "dynamo_component");
  if (component.empty()) component = Label(series, "component");
  std::string id = component == "prefill"                             ? "prefill"
                   : component == "backend" || component == "decode"  ? "decode"
                   : component == "frontend" || component == "router" ? "router"
                                                                      : "combined";
  if (const json::value* e = series.if_contains("endpoint_url"); e != nullptr && e->is_string())
    id += "|" + std::string(e->as_string());
  for (const char* key : {"worker_id", "dp_rank", "engine"}) {
    if (std::string v = Label(series, key); !v.empty()) id += fmt::format("|{}={}", key, v);
  }
  return id;
}

// The adapter a metric's name belongs to ("" for none): InferenceX's matches() by name.
std::string_view AdapterOfName(std::string_view name) {
  if (name.starts_with("dynamo_")) return "dynamo-vllm";
  if (name.starts_with("atom:") || name.starts_with("atom_")) return "atom";
  if (name.starts_with("sglang:")) return "sglang";
  if (name.starts_with("vllm:")) return "vllm";
  return "";
}

}  // namespace

json::object EmptyServerMetricsBlock(bool present, size_t metric_count) {
  return json::object{
      {"present", present},
      {"adapter", "none"},
      {"metric_count", metric_count},
      {"cache", json::object{{"gpu_cache_hit_rate", nullptr},
                             {"cpu_cache_hit_rate", nullptr},
                             {"external_cache_hit_rate", nullptr},
                             {"overall_cache_hit_rate", nullptr},
                             {"prefix_cache_hits", nullptr},
                             {"prefix_cache_queries", nullptr},
                             {"external_prefix_cache_hits", nullptr},
                             {"external_prefix_cache_queries", nullptr},
                             {"cached_tokens_by_source", json::object()},
                             {"frontend_cache_hit_rate", nullptr},
                             {"router_kv_hit_rate", nullptr},
                             {"router_shared_cache_hit_rate", nullptr},
                             {"frontend_cached_tokens", nullptr},
                             {"frontend_input_tokens", nullptr}}},
      {"kv_cache", json::object{{"gpu_usage_pct", nullptr},
                                {"gpu_total_tokens", nullptr},
                                {"cpu_usage_pct", nullptr},
                                {"cpu_used_tokens", nullptr},
                                {"cpu_total_tokens", nullptr}}},
      {"kv_offload", json::object{{"bytes_gpu_to_cpu", nullptr},
                                  {"bytes_cpu_to_gpu", nullptr},
                                  {"time_gpu_to_cpu", nullptr},
                                  {"time_cpu_to_gpu", nullptr},
                                  {"bandwidth_gpu_to_cpu_bytes_per_second", nullptr},
                                  {"bandwidth_cpu_to_gpu_bytes_per_second", nullptr}}},
      {"tokens",
       json::object{{"prompt_total", nullptr},
                    {"generation_total", nullptr},
                    {"requests_completed", nullptr},
                    {"prompt_by_source", json::object{{"gpu_cache_hit", nullptr},
                                                      {"cpu_or_external_cache_hit", nullptr},
                                                      {"computed", nullptr},
                                                      {"raw", json::object()}}}}},
      {"sources", json::array()}};
}

namespace {

json::array VllmSources(const json::object& metrics) {
  std::set<std::string> ids;
  ForSeries(
      metrics,
      {"vllm:prompt_tokens", "vllm:generation_tokens", "vllm:prefix_cache_hits",
       "vllm:prefix_cache_queries", "vllm:kv_cache_usage_perc", "vllm:prompt_tokens_by_source"},
      [&](const json::object& s) { ids.insert(SourceId(s)); });
  json::array out;
  for (const std::string& id : ids) {
    const Filter mine = [&id](const json::object& s) { return SourceId(s) == id; };
    out.push_back(json::object{
        {"id", id},
        {"role", id.substr(0, id.find('|'))},
        {"prompt_tokens", J(SumStat(metrics, "vllm:prompt_tokens", mine))},
        {"generation_tokens", J(SumStat(metrics, "vllm:generation_tokens", mine))},
        {"prefix_cache_hit_rate", J(Rate(SumStat(metrics, "vllm:prefix_cache_hits", mine),
                                         SumStat(metrics, "vllm:prefix_cache_queries", mine)))},
        {"gpu_kv_cache_usage_pct",
         J(Fraction(GaugeMax(metrics, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"},
                             mine)))}});
  }
  return out;
}

}  // namespace

std::optional<json::object> ServerMetricsExportJson(
    const std::vector<metrics::TimedScrape>& scrapes, const std::string& endpoint_url) {
  // name → label set → series, in name order (the export's keys).
  std::map<std::string, std::map<std::map<std::string, std::string>, Series>> by_name;
  bool adapted = false;  // a metric an adapter here reads
  for (const metrics::TimedScrape& t : scrapes) {
    for (const metrics::PromSample& s : t.samples) {
      adapted = adapted || !AdapterOfName(s.name).empty();
      Series& series = by_name[s.name][s.labels];
      series.labels = s.labels;
      series.points.emplace_back(t.unix_ns, s.value);
    }
  }
  if (scrapes.empty() || !adapted) return std::nullopt;
  json::object metrics;
  // A histogram's _sum and _count (the only _sum and _count a scrape keeps, ScrapeOf),
  // by family and label set: exported as one histogram metric, as AIPerf does.
  std::map<std::string, std::map<std::map<std::string, std::string>, std::pair<Series, Series>>>
      histograms;
  for (const auto& [name, label_sets] : by_name) {
    const bool sum = EndsWith(name, "_sum"), count = EndsWith(name, "_count");
    if (!sum && !count) continue;
    auto& family = histograms[name.substr(0, name.size() - (sum ? 4 : 6))];
    for (const auto& [labels, series] : label_sets)
      (sum ? family[labels].first : family[labels].second) = series;
  }
  for (const auto& [family, label_sets] : histograms) {
    json::array series;
    for (const auto& [labels, parts] : label_sets) {
      json::object l;
      for (const auto& [k, v] : labels) l[k] = v;
      series.push_back(json::object{
          {"endpoint_url", endpoint_url},
          {"labels", labels.empty() ? json::value(nullptr) : json::value(std::move(l))},
          {"stats", HistogramStats(parts.first.points, parts.second.points)}});
    }
    metrics[family] = json::object{{"type", "histogram"},
                                   {"description", ""},
                                   {"unit", nullptr},
                                   {"series", std::move(series)}};
  }
  for (const auto& [name, label_sets] : by_name) {
    if (EndsWith(name, "_sum") || EndsWith(name, "_count")) continue;  // in `histograms`
    // prometheus_client names every counter sample "<family>_total"; AIPerf keys the
    // counter by its family name.
    const bool counter = EndsWith(name, "_total");
    const std::string key = counter ? name.substr(0, name.size() - 6) : name;
    json::array series;
    for (const auto& [labels, s] : label_sets) {
      json::object l;
      for (const auto& [k, v] : labels) l[k] = v;
      series.push_back(json::object{
          {"endpoint_url", endpoint_url},
          {"labels", labels.empty() ? json::value(nullptr) : json::value(std::move(l))},
          {"stats", counter ? CounterStats(s.points) : GaugeStats(s.points)}});
    }
    metrics[key] = json::object{{"type", counter ? "counter" : "gauge"},
                                {"description", ""},  // servebench's parser keeps no HELP text
                                {"unit", nullptr},
                                {"series", std::move(series)}};
  }
  const int64_t first = scrapes.front().unix_ns, last = scrapes.back().unix_ns;
  json::object info{{"total_fetches", scrapes.size()},
                    {"first_fetch_ns", first},
                    {"last_fetch_ns", last},
                    {"duration_seconds", static_cast<double>(last - first) / 1e9}};
  json::object summary{{"endpoints_configured", json::array{json::value(endpoint_url)}},
                       {"endpoints_successful", json::array{json::value(endpoint_url)}},
                       {"start_time", IsoTime(first)},
                       {"end_time", IsoTime(last)},
                       {"endpoint_info", json::object{{endpoint_url, std::move(info)}}}};
  return json::object{{"schema_version", "1.0"},
                      {"aiperf_version", nullptr},  // written by servebench, not AIPerf
                      {"benchmark_id", nullptr},
                      {"summary", std::move(summary)},
                      {"metrics", std::move(metrics)},
                      {"input_config", json::object()}};
}

namespace {

// vllm.first_counter_total: the first of `names` the export has a counter total for.
std::optional<double> FirstCounterTotal(const json::object& metrics,
                                        std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (auto v = SumStat(metrics, name)) return v;
  return std::nullopt;
}

// vllm.py's populate, with the counters its prompt_generation_totals reads named: the
// vLLM adapter's, and the Dynamo-vLLM adapter's that reads the frontend's first.
json::object VllmBlock(const json::object& export_json, int64_t requests_completed,
                       int64_t prompt_tokens, int64_t generation_tokens, const char* adapter,
                       std::initializer_list<const char*> prompt_counters,
                       std::initializer_list<const char*> generation_counters) {
  const json::object& metrics = MetricsOf(export_json);
  json::object block = EmptyServerMetricsBlock(!metrics.empty(), metrics.size());
  block["adapter"] = adapter;

  const std::optional<double> hits = SumStat(metrics, "vllm:prefix_cache_hits");
  const std::optional<double> queries = SumStat(metrics, "vllm:prefix_cache_queries");
  const std::optional<double> ext_hits = SumStat(metrics, "vllm:external_prefix_cache_hits");
  const std::optional<double> ext_queries = SumStat(metrics, "vllm:external_prefix_cache_queries");
  std::optional<double> gpu_rate = Rate(hits, queries);
  std::optional<double> external_rate = Rate(ext_hits, ext_queries);
  std::optional<double> cpu_rate = external_rate, overall;

  const std::map<std::string, double> by_source =
      SumByLabel(metrics, "vllm:prompt_tokens_by_source", "source");
  json::value prompt_by_source = block["tokens"].at("prompt_by_source");  // all null
  if (!by_source.empty()) {
    const auto local = ValueAt(by_source, "local_cache_hit");
    const auto external = ValueAt(by_source, "external_kv_transfer");
    double total = 0;
    json::object raw;
    for (const auto& [k, v] : by_source) {
      total += v;
      raw[k] = v;
    }
    if (total > 0) {
      if (local) gpu_rate = *local / total;
      if (external) cpu_rate = external_rate = *external / total;
      overall = (local.value_or(0) + external.value_or(0)) / total;
    }
    prompt_by_source = json::object{{"gpu_cache_hit", J(local)},
                                    {"cpu_or_external_cache_hit", J(external)},
                                    {"computed", J(ValueAt(by_source, "local_compute"))},
                                    {"raw", std::move(raw)}};
  } else if (gpu_rate) {
    overall = gpu_rate;
  }

  FillCache(&block["cache"].as_object(), {.gpu_rate = gpu_rate,
                                          .cpu_rate = cpu_rate,
                                          .external_rate = external_rate,
                                          .overall_rate = overall,
                                          .hits = hits,
                                          .queries = queries,
                                          .external_hits = ext_hits,
                                          .external_queries = ext_queries});
  json::object& kv_cache = block["kv_cache"].as_object();
  kv_cache["gpu_usage_pct"] =
      J(Fraction(GaugeMax(metrics, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"})));
  // gpu_total_tokens comes from the engine's log (agentic_result.h, engine_log_kv.h).
  kv_cache["cpu_usage_pct"] = J(Fraction(GaugeMax(metrics, {"vllm:cpu_kv_cache_usage_perc"})));
  const auto b_g2c = SumStat(metrics, "vllm:kv_offload_bytes_gpu_to_cpu");
  const auto b_c2g = SumStat(metrics, "vllm:kv_offload_bytes_cpu_to_gpu");
  const auto t_g2c = SumStat(metrics, "vllm:kv_offload_time_gpu_to_cpu");
  const auto t_c2g = SumStat(metrics, "vllm:kv_offload_time_cpu_to_gpu");
  block["kv_offload"] =
      json::object{{"bytes_gpu_to_cpu", J(b_g2c)},
                   {"bytes_cpu_to_gpu", J(b_c2g)},
                   {"time_gpu_to_cpu", J(t_g2c)},
                   {"time_cpu_to_gpu", J(t_c2g)},
                   {"bandwidth_gpu_to_cpu_bytes_per_second", J(Rate(b_g2c, t_g2c))},
                   {"bandwidth_cpu_to_gpu_bytes_per_second", J(Rate(b_c2g, t_c2g))}};
  const auto prompt_total = FirstCounterTotal(metrics, prompt_counters);
  const auto generation_total = FirstCounterTotal(metrics, generation_counters);
  block["tokens"] =
      json::object{{"prompt_total", TokenTotal(prompt_total, prompt_tokens)},
                   {"generation_total", TokenTotal(generation_total, generation_tokens)},
                   {"requests_completed", requests_completed},
                   {"prompt_by_source", std::move(prompt_by_source)}};
  block["sources"] = VllmSources(metrics);
  return block;
}

}  // namespace

json::object VllmServerMetricsBlock(const json::object& export_json, int64_t requests_completed,
                                    int64_t prompt_tokens, int64_t generation_tokens) {
  return VllmBlock(export_json, requests_completed, prompt_tokens, generation_tokens, "vllm",
                   {"vllm:prompt_tokens"}, {"vllm:generation_tokens"});
}

json::object DynamoVllmServerMetricsBlock(const json::object& export_json,
                                          int64_t requests_completed, int64_t prompt_tokens,
                                          int64_t generation_tokens) {
  json::object block =
      VllmBlock(export_json, requests_completed, prompt_tokens, generation_tokens, "dynamo-vllm",
                {"dynamo_frontend_input_sequence_tokens", "vllm:prompt_tokens"},
                {"dynamo_frontend_output_tokens", "vllm:generation_tokens"});
  const json::object& metrics = MetricsOf(export_json);
  json::object& kv = block["kv_cache"].as_object();
  if (kv["gpu_usage_pct"].is_null()) {
    kv["gpu_usage_pct"] =
        J(Fraction(GaugeMax(metrics, "dynamo_component_gpu_cache_usage_percent")));
  }
  // The frontend's cached and input tokens are histograms: their observed sums.
  const auto cached = SumStat(metrics, "dynamo_frontend_cached_tokens");
  const auto input = SumStat(metrics, "dynamo_frontend_input_sequence_tokens");
  json::object& cache = block["cache"].as_object();
  cache["frontend_cache_hit_rate"] = J(Rate(cached, input));
  cache["router_kv_hit_rate"] = J(
      Fraction(GaugeAvg(metrics, "dynamo_component_router_kv_hit_rate", {"avg", "max", "total"})));
  cache["router_shared_cache_hit_rate"] = J(Fraction(
      GaugeAvg(metrics, "dynamo_component_router_shared_cache_hit_rate", {"avg", "max", "total"})));
  cache["frontend_cached_tokens"] = J(cached);
  cache["frontend_input_tokens"] = J(input);
  return block;
}

json::object AtomServerMetricsBlock(const json::object& export_json, int64_t requests_completed,
                                    int64_t prompt_tokens, int64_t generation_tokens) {
  const json::object& metrics = MetricsOf(export_json);
  json::object block = EmptyServerMetricsBlock(!metrics.empty(), metrics.size());
  block["adapter"] = "atom";
  // A worker's own names ("atom:x") and Atomesh's ("atom_x"); a counter under its family
  // name or with "_total" (atom.py's _atom_counter_names): every one found is summed.
  const auto counter = [&metrics](const std::string& stem) {
    return SumStat(metrics, Names(std::vector<std::string>{"atom:" + stem, "atom_" + stem,
                                                           "atom:" + stem + "_total",
                                                           "atom_" + stem + "_total"}));
  };
  const auto prompt_total = counter("prompt_tokens");
  const auto generation_total = counter("generation_tokens");
  const auto cached = counter("prefix_cache_cached_tokens");
  const auto full = counter("prefix_cache_full_tokens");
  const auto external = counter("lmcache_loaded_tokens");
  const auto gpu_rate = Rate(cached, full);
  const auto external_rate = Rate(external, full);
  // ATOM's admitted-cache counter may already hold a completed LMCache load: the overall
  // rate is the GPU's, not the sum of both.
  FillCache(&block["cache"].as_object(), {.gpu_rate = gpu_rate,
                                          .cpu_rate = external_rate,
                                          .external_rate = external_rate,
                                          .overall_rate = gpu_rate,
                                          .hits = cached,
                                          .queries = full,
                                          .external_hits = external,
                                          .external_queries = full});
  block["kv_cache"].as_object()["gpu_usage_pct"] =
      J(Fraction(GaugeMax(metrics, {"atom:kv_cache_usage_ratio", "atom_kv_cache_usage_ratio"})));
  json::object& tokens = block["tokens"].as_object();
  tokens["prompt_total"] = TokenTotal(prompt_total, prompt_tokens);
  tokens["generation_total"] = TokenTotal(generation_total, generation_tokens);
  tokens["requests_completed"] = requests_completed;
  return block;
}

std::string ServerMetricsAdapter(const json::object& export_json) {
  // InferenceX's detect_backend tries Dynamo, ATOM, SGLang, vLLM in that order: the first
  // whose names any metric has wins (a Dynamo frontend in front of vLLM workers is Dynamo).
  std::set<std::string_view> found;
  for (const auto& kv : MetricsOf(export_json)) found.insert(AdapterOfName(kv.key()));
  for (const char* adapter : {"dynamo-vllm", "atom", "sglang", "vllm"})
    if (found.contains(adapter)) return adapter;
  return "";
}

json::object SglangServerMetricsBlock(const json::object& export_json, int64_t requests_completed,
                                      int64_t prompt_tokens, int64_t generation_tokens) {
  const json::object& metrics = MetricsOf(export_json);
  json::object block = EmptyServerMetricsBlock(!metrics.empty(), metrics.size());
  block["adapter"] = "sglang";

  const auto prompt_total = SumStat(metrics, "sglang:prompt_tokens");
  const auto generation_total = SumStat(metrics, "sglang:generation_tokens");
  // Cached prompt tokens by where they were found: "device" (the GPU's radix cache),
  // "host" (HiCache's CPU tier), ...
  const std::map<std::string, double> by_source =
      SumByLabel(metrics, "sglang:cached_tokens", "cache_source");
  std::optional<double> total_cached;
  json::object raw;
  for (const auto& [k, v] : by_source) {
    total_cached = total_cached.value_or(0) + v;
    raw[k] = v;
  }
  const auto device = ValueAt(by_source, "device"), host = ValueAt(by_source, "host");
  const auto gpu_rate = Rate(device, prompt_total);
  const auto cpu_rate = Rate(host, prompt_total);  // HiCache host hits are external to the GPU
  std::optional<double> overall = Rate(total_cached, prompt_total);
  if (!overall)
    overall = Fraction(GaugeAvg(metrics, "sglang:cache_hit_rate", {"avg", "max", "total"}));
  json::object& cache = block["cache"].as_object();
  cache["gpu_cache_hit_rate"] = J(gpu_rate);
  cache["cpu_cache_hit_rate"] = J(cpu_rate);
  cache["external_cache_hit_rate"] = J(cpu_rate);
  cache["overall_cache_hit_rate"] = J(overall);
  cache["cached_tokens_by_source"] = raw;

  const auto host_used = GaugeMax(metrics, {"sglang:hicache_host_used_tokens"});
  const auto host_total = GaugeMax(metrics, {"sglang:hicache_host_total_tokens"});
  json::object& kv = block["kv_cache"].as_object();
  kv["gpu_usage_pct"] = J(Fraction(GaugeMax(metrics, {"sglang:token_usage"})));
  kv["gpu_total_tokens"] = CounterInt(
      SumStat(metrics, "sglang:max_total_num_tokens", nullptr, {"max", "avg", "total", "sum"}));
  kv["cpu_usage_pct"] = J(Rate(host_used, host_total));
  kv["cpu_used_tokens"] = J(host_used);
  kv["cpu_total_tokens"] = J(host_total);

  const Filter prefill_compute = [](const json::object& s) {
    return Label(s, "mode") == "prefill_compute";
  };
  json::object& tokens = block["tokens"].as_object();
  tokens["prompt_total"] = TokenTotal(prompt_total, prompt_tokens);
  tokens["generation_total"] = TokenTotal(generation_total, generation_tokens);
  tokens["requests_completed"] = requests_completed;
  tokens["prompt_by_source"] =
      json::object{{"gpu_cache_hit", J(device)},
                   {"cpu_or_external_cache_hit", J(host)},
                   {"computed", J(SumStat(metrics, "sglang:realtime_tokens", prefill_compute))},
                   {"raw", std::move(raw)}};
  return block;
}

json::object EngineServerMetricsBlock(const json::object& export_json, int64_t requests_completed,
                                      int64_t prompt_tokens, int64_t generation_tokens) {
  const std::string adapter = ServerMetricsAdapter(export_json);
  const auto block = adapter == "dynamo-vllm" ? DynamoVllmServerMetricsBlock
                     : adapter == "atom"      ? AtomServerMetricsBlock
                     : adapter == "sglang"    ? SglangServerMetricsBlock
                                              : VllmServerMetricsBlock;
  return block(export_json, requests_completed, prompt_tokens, generation_tokens);
}

}  // namespace servebench::run
