#include "telemetry/dcgm_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "common/clock.h"
#include "metrics/prometheus.h"
#include "net/http_fetch.h"
#include "net/url.h"
#include "telemetry/gpu_selection.h"

namespace servebench::telemetry {
namespace {

constexpr double kScrapeTimeoutS = 5;
constexpr double kBlankSentinel = 9.2e18;  // DCGM's blank values sit just below 2^63

struct GpuSeries {
  GpuInfo info;
  std::optional<double> power_w, energy_j, temp_c, sm_clock_mhz, util_pct, mem_used_mib;
};

std::optional<double> Value(double v) {
  if (!(v == v) || v >= kBlankSentinel || v < 0) return std::nullopt;
  return v;
}

// One scrape: per GPU (keyed by UUID, else the gpu label) the fields servebench reads.
// What the simulated engine says about its own time and sensor.
struct SimGauges {
  double time_scale = 1.0;
  std::optional<double> power_average_s;
};

StatusOr<std::map<std::string, GpuSeries>> ParseScrape(const std::string& body,
                                                       const std::string& power_field,
                                                       SimGauges* sim) {
  SB_ASSIGN_OR_RETURN(std::vector<metrics::PromSample> samples, metrics::ParsePrometheusText(body));
  std::map<std::string, GpuSeries> gpus;
  std::set<std::string> powered;  // GPUs with a series of the power field
  for (const metrics::PromSample& s : samples) {
    if (s.name == "servebench_sim_time_scale" && sim) {
      sim->time_scale = s.value;
      continue;
    }
    if (s.name == "servebench_sim_power_average_s" && sim) {
      sim->power_average_s = s.value;
      continue;
    }
    if (s.name.rfind("DCGM_FI_", 0) != 0) continue;
    auto label = [&](const char* k) {
      auto it = s.labels.find(k);
      return it == s.labels.end() ? std::string() : it->second;
    };
    std::string uuid = label("UUID"), index = label("gpu");
    if (uuid.empty() && index.empty()) continue;
    std::string key = uuid.empty() ? index : uuid;
    GpuSeries& g = gpus[key];
    g.info.key = key;
    g.info.uuid = uuid;
    g.info.index = index.empty() ? -1 : std::atoi(index.c_str());
    if (g.info.name.empty()) g.info.name = label("modelName");
    bool mig = !label("GPU_I_ID").empty();
    if (mig) g.info.mig_enabled = true;
    auto keep = [&](std::optional<double>* field, double scale) {
      if (!field->has_value()) {
        if (std::optional<double> v = Value(s.value)) *field = *v * scale;
      }
    };
    if (s.name == power_field) {
      powered.insert(key);
      keep(&g.power_w, 1);
    }
    if (s.name == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") keep(&g.energy_j, 1e-3);
    if (s.name == "DCGM_FI_DEV_GPU_TEMP") keep(&g.temp_c, 1);
    if (s.name == "DCGM_FI_DEV_SM_CLOCK") keep(&g.sm_clock_mhz, 1);
    if (s.name == "DCGM_FI_DEV_GPU_UTIL") keep(&g.util_pct, 1);
    if (s.name == "DCGM_FI_DEV_FB_USED") keep(&g.mem_used_mib, 1);
    if (s.name == "DCGM_FI_DEV_POWER_MGMT_LIMIT" && !g.info.power_limit_w)
      g.info.power_limit_w = Value(s.value);
  }
  // Only GPUs that export the power field count.
  for (auto it = gpus.begin(); it != gpus.end();) {
    it = powered.count(it->first) ? std::next(it) : gpus.erase(it);
  }
  return gpus;
}

class DcgmSampler : public PollingSampler {
 public:
  DcgmSampler(SourceInfo info, std::vector<GpuInfo> gpus, std::vector<std::string> urls,
              HttpGet get)
      : PollingSampler(std::move(info), std::move(gpus)),
        urls_(std::move(urls)),
        get_(std::move(get)) {}
  ~DcgmSampler() override { Stop(); }

 protected:
  StatusOr<std::vector<PowerSample>> ReadOnce() override {
    std::vector<PowerSample> out;
    std::optional<Status> first_error;
    size_t answered = 0;
    for (const std::string& url : urls_) {
      int64_t t0 = MonotonicNowNs();
      StatusOr<std::string> body = get_(url, kScrapeTimeoutS);
      int64_t t1 = MonotonicNowNs();
      StatusOr<std::map<std::string, GpuSeries>> gpus =
          body.ok() ? ParseScrape(*body, info().field, nullptr)
                    : StatusOr<std::map<std::string, GpuSeries>>(body.status());
      if (!gpus.ok()) {
        // This endpoint's GPUs get no sample this period: a gap for them only.
        if (!first_error)
          first_error = Status(gpus.status().code(), url + ": " + gpus.status().message());
        continue;
      }
      ++answered;
      for (const GpuInfo& want : this->gpus()) {
        if (want.endpoint != url) continue;
        auto it = gpus->find(want.key);
        if (it == gpus->end()) continue;  // a missing series is a gap for that GPU
        const GpuSeries& g = it->second;
        PowerSample s;
        s.t_ns = t0 + (t1 - t0) / 2;
        s.gpu = want.key;
        s.power_w = g.power_w;
        s.energy_j = g.energy_j;
        s.temp_c = g.temp_c;
        s.sm_clock_mhz = g.sm_clock_mhz;
        s.util_pct = g.util_pct;
        s.mem_used_mib = g.mem_used_mib;
        out.push_back(std::move(s));
      }
    }
    if (answered == 0 && first_error) return *first_error;
    return out;
  }

 private:
  std::vector<std::string> urls_;
  HttpGet get_;
};

}  // namespace

HttpGet NetHttpGet(const net::TlsOptions& tls) {
  return [tls](const std::string& target, double timeout_s) -> StatusOr<std::string> {
    SB_ASSIGN_OR_RETURN(net::Url url, net::ParseUrl(target));
    std::string path = url.path.empty() ? "/" : url.path;
    net::Url base = url;
    base.path.clear();
    SB_ASSIGN_OR_RETURN(net::HttpReply reply, net::HttpFetch(base, path, "", timeout_s, {}, tls));
    if (reply.status != 200) return Status::Unavailable(fmt::format("HTTP {}", reply.status));
    return std::move(reply.body);
  };
}

StatusOr<std::unique_ptr<Sampler>> OpenDcgm(const std::string& url, const SourceOptions& o,
                                            HttpGet get) {
  return OpenDcgmEndpoints({url}, o, std::move(get));
}

StatusOr<std::unique_ptr<Sampler>> OpenDcgmEndpoints(const std::vector<std::string>& urls,
                                                     const SourceOptions& o, HttpGet get) {
  if (urls.empty()) return Status::Unavailable("no /metrics URL to read");
  bool instant = o.reading == PowerReading::kInstant;
  std::string field = instant ? "DCGM_FI_DEV_POWER_USAGE_INSTANT" : "DCGM_FI_DEV_POWER_USAGE";
  std::vector<GpuInfo> listed;
  std::map<std::string, std::string> listed_by;  // GPU key -> the URL that lists it
  std::optional<SimGauges> first_sim;
  std::string where;
  for (const std::string& url : urls) {
    StatusOr<std::string> body = get(url, kScrapeTimeoutS);
    if (!body.ok()) return Status::Unavailable(url + ": " + body.status().message());
    SimGauges sim;
    StatusOr<std::map<std::string, GpuSeries>> gpus = ParseScrape(*body, field, &sim);
    if (!gpus.ok()) return Status::Unavailable(url + ": " + gpus.status().message());
    if (gpus->empty()) return Status::Unavailable(url + ": exports no " + field + " series");
    if (first_sim && (first_sim->time_scale != sim.time_scale ||
                      first_sim->power_average_s != sim.power_average_s)) {
      return Status::Unavailable(fmt::format(
          "{} and {} disagree on servebench_sim_time_scale / servebench_sim_power_average_s",
          urls.front(), url));
    }
    if (!first_sim) first_sim = sim;
    std::vector<GpuInfo> here;
    for (auto& [key, g] : *gpus) {
      auto [it, fresh] = listed_by.emplace(key, url);
      if (!fresh) {
        return Status::Unavailable(fmt::format(
            "GPU {} is listed by both {} and {}: it would be counted twice", key, it->second, url));
      }
      g.info.endpoint = url;
      here.push_back(g.info);
    }
    // In index order per endpoint, the endpoints in the order given.
    std::sort(here.begin(), here.end(),
              [](const GpuInfo& a, const GpuInfo& b) { return a.index < b.index; });
    listed.insert(listed.end(), here.begin(), here.end());
    where += (where.empty() ? "" : ", ") + url;
  }
  SB_ASSIGN_OR_RETURN(std::vector<GpuInfo> chosen, SelectGpus(listed, o, where));
  SourceInfo info;
  info.source = "dcgm";
  info.field = field;
  // The simulated engine says how long its averaged reading averages.
  info.sensor_avg_s = instant ? 0.0 : first_sim->power_average_s.value_or(1.0);
  info.period_s = o.period_s;
  info.time_scale = first_sim->time_scale;
  info.where = where;
  return std::unique_ptr<Sampler>(
      new DcgmSampler(std::move(info), std::move(chosen), urls, std::move(get)));
}

}  // namespace servebench::telemetry
