#include "telemetry/samples_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <map>

namespace servebench::telemetry {

std::string NvidiaSmiTimestamp(int64_t unix_ns) {
  int64_t ms_total = unix_ns >= 0 ? unix_ns / 1'000'000 : (unix_ns - 999'999) / 1'000'000;
  std::time_t secs =
      static_cast<std::time_t>(ms_total >= 0 ? ms_total / 1000 : (ms_total - 999) / 1000);
  int ms = static_cast<int>(ms_total - static_cast<int64_t>(secs) * 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y/%m/%d %H:%M:%S", &tm);
  return fmt::format("{}.{:03d}", buf, ms);
}

std::string SamplesToCsv(const SampleSet& set, const TimeAnchor& anchor) {
  std::map<std::string, const GpuInfo*> info;
  for (const GpuInfo& g : set.gpus) info[g.key] = &g;
  std::vector<const PowerSample*> order;
  for (const PowerSample& s : set.samples) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(),
                   [](const PowerSample* a, const PowerSample* b) { return a->t_ns < b->t_ns; });
  std::string field = set.info.field.empty() ? "power.draw" : set.info.field;
  std::string out = fmt::format(
      "timestamp, index, uuid, {} [W], energy [J], temperature.gpu, clocks.current.sm [MHz], "
      "utilization.gpu [%], memory.used [MiB]\n",
      field);
  auto cell = [](const std::optional<double>& v, const char* unit, int decimals) {
    if (!v) return std::string("[N/A]");
    return fmt::format("{:.{}f}{}", *v, decimals, unit);
  };
  for (const PowerSample* s : order) {
    auto it = info.find(s->gpu);
    const GpuInfo* g = it == info.end() ? nullptr : it->second;
    std::string index = g && g->index >= 0 ? std::to_string(g->index) : s->gpu;
    std::string uuid = g ? g->uuid : "";
    out += fmt::format("{}, {}, {}, {}, {}, {}, {}, {}, {}\n",
                       NvidiaSmiTimestamp(anchor.UnixNsFromMonotonic(s->t_ns)), index, uuid,
                       cell(s->power_w, " W", 2), cell(s->energy_j, " J", 3),
                       cell(s->temp_c, "", 0), cell(s->sm_clock_mhz, " MHz", 0),
                       cell(s->util_pct, " %", 0), cell(s->mem_used_mib, " MiB", 0));
  }
  return out;
}

}  // namespace servebench::telemetry
