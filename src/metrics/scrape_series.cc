#include "metrics/scrape_series.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cmath>
#include <fstream>
#include <set>

#include "metrics/percentile.h"

namespace servebench::metrics {
namespace json = boost::json;
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// InferenceX's normalize_fraction: engines export the usage as 0..1 or as 0..100.
double Fraction(double v) { return v > 1.5 ? v / 100.0 : v; }

std::optional<double> MaxOf(const std::vector<PromSample>& samples, std::string_view name) {
  std::optional<double> best;
  for (const PromSample& s : samples) {
    if (s.name == name && std::isfinite(s.value) && (!best || s.value > *best)) best = s.value;
  }
  return best;
}

double SumOf(const std::vector<PromSample>& samples, std::string_view name, bool* found) {
  double total = 0;
  for (const PromSample& s : samples) {
    if (s.name == name) {
      total += s.value;
      *found = true;
    }
  }
  return total;
}

json::value StatsJson(const std::vector<double>& values) {
  if (values.empty()) return nullptr;
  const Stats s = ComputeStats(values, {50, 90, 99});
  return json::object{{"samples", values.size()},
                      {"mean", s.mean},
                      {"max", s.max},
                      {"p50", s.percentile_values[0]},
                      {"p90", s.percentile_values[1]},
                      {"p99", s.percentile_values[2]}};
}

json::value Optional(const std::optional<double>& v) {
  return v ? json::value(*v) : json::value(nullptr);
}

}  // namespace

TimedScrape ScrapeOf(int64_t unix_ns, std::vector<PromSample> samples) {
  TimedScrape t;
  t.unix_ns = unix_ns;
  // The histograms' family names, from their buckets: a family's _sum and _count are
  // kept (two samples a series, what AIPerf's export reports of a histogram besides its
  // buckets); any other _sum or _count (a summary's) is dropped with the buckets.
  std::set<std::string> histograms;
  for (const PromSample& s : samples) {
    if (EndsWith(s.name, "_bucket")) histograms.insert(s.name.substr(0, s.name.size() - 7));
  }
  for (PromSample& s : samples) {
    if (EndsWith(s.name, "_bucket") || EndsWith(s.name, "_created")) continue;
    const size_t suffix = EndsWith(s.name, "_sum") ? 4 : EndsWith(s.name, "_count") ? 6 : 0;
    if (suffix > 0 && !histograms.contains(s.name.substr(0, s.name.size() - suffix))) continue;
    t.samples.push_back(std::move(s));
  }
  return t;
}

KvUsage KvUsageOf(const std::vector<PromSample>& samples) {
  KvUsage u;
  if (auto v = MaxOf(samples, "vllm:kv_cache_usage_perc")) {
    u.gpu = *v;
  } else if (auto old = MaxOf(samples, "vllm:gpu_cache_usage_perc")) {
    u.gpu = *old;
  }
  if (u.gpu) {
    u.source = "vllm";
    if (auto cpu = MaxOf(samples, "vllm:cpu_kv_cache_usage_perc")) u.cpu = Fraction(*cpu);
  } else if (auto sglang = MaxOf(samples, "sglang:token_usage")) {
    u.source = "sglang";
    u.gpu = *sglang;
    bool used = false, total = false;
    const double host_used = SumOf(samples, "sglang:hicache_host_used_tokens", &used);
    const double host_total = SumOf(samples, "sglang:hicache_host_total_tokens", &total);
    if (used && total && host_total > 0) u.cpu = host_used / host_total;
  } else if (auto llama = MaxOf(samples, "llamacpp:kv_cache_usage_ratio")) {
    u.source = "llamacpp";
    u.gpu = *llama;
  }
  if (u.gpu) u.gpu = Fraction(*u.gpu);
  return u;
}

json::object KvUsageJson(const std::vector<TimedScrape>& scrapes, double interval_s) {
  std::vector<double> gpu, cpu;
  std::string source;
  for (const TimedScrape& t : scrapes) {
    const KvUsage u = KvUsageOf(t.samples);
    if (!u.source.empty()) source = u.source;
    if (u.gpu) gpu.push_back(*u.gpu);
    if (u.cpu) cpu.push_back(*u.cpu);
  }
  return json::object{{"interval_s", interval_s},
                      {"scrapes", scrapes.size()},
                      {"source", source.empty() ? json::value(nullptr) : json::value(source)},
                      {"gpu", StatsJson(gpu)},
                      {"cpu", StatsJson(cpu)}};
}

std::string ScrapesToJsonl(const std::vector<TimedScrape>& scrapes) {
  std::string out;
  for (const TimedScrape& t : scrapes) {
    json::array samples;
    samples.reserve(t.samples.size());
    for (const PromSample& s : t.samples) {
      json::object labels;
      for (const auto& [k, v] : s.labels) labels[k] = v;
      // JSON has no NaN or infinity: such a sample is written as null.
      samples.push_back(json::array{json::value(s.name), std::move(labels),
                                    std::isfinite(s.value) ? json::value(s.value) : nullptr});
    }
    const KvUsage u = KvUsageOf(t.samples);
    json::object line{{"unix_ns", t.unix_ns},
                      {"kv_usage", {{"gpu", Optional(u.gpu)}, {"cpu", Optional(u.cpu)}}},
                      {"samples", std::move(samples)}};
    out += json::serialize(line);
    out += '\n';
  }
  return out;
}

StatusOr<std::vector<TimedScrape>> ReadScrapesJsonl(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": cannot open the server-metrics series");
  std::vector<TimedScrape> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    auto bad = [&](const std::string& what) {
      return Status::InvalidArgument(fmt::format("{}:{}: {}", path, n, what));
    };
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec || !v.is_object()) return bad("not a JSON object");
    const json::object& o = v.as_object();
    const json::value* t = o.if_contains("unix_ns");
    const json::value* samples = o.if_contains("samples");
    if (t == nullptr || !t->is_int64()) return bad("unix_ns: must be an integer");
    if (samples == nullptr || !samples->is_array()) return bad("samples: must be an array");
    TimedScrape scrape;
    scrape.unix_ns = t->as_int64();
    for (const json::value& s : samples->as_array()) {
      if (!s.is_array() || s.as_array().size() != 3 || !s.as_array()[0].is_string() ||
          !s.as_array()[1].is_object() ||
          !(s.as_array()[2].is_number() || s.as_array()[2].is_null()))
        return bad("samples: each must be [name, {labels}, value]");
      PromSample p;
      p.name = s.as_array()[0].as_string();
      for (const auto& kv : s.as_array()[1].as_object()) {
        if (!kv.value().is_string()) return bad("samples: label values must be strings");
        p.labels[kv.key()] = kv.value().as_string();
      }
      p.value = s.as_array()[2].is_null() ? std::nan("") : s.as_array()[2].to_number<double>();
      scrape.samples.push_back(std::move(p));
    }
    out.push_back(std::move(scrape));
  }
  return out;
}

}  // namespace servebench::metrics
