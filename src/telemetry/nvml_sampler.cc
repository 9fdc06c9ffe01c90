#include "telemetry/nvml_sampler.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>

#include "common/clock.h"
#include "telemetry/gpu_selection.h"

namespace servebench::telemetry {
namespace {

// The NVML declarations servebench calls, as documented in nvml.h.
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr unsigned kFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT, mW
constexpr int kTemperatureGpu = 0;            // NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;                   // NVML_CLOCK_SM
constexpr unsigned kMigEnabled = 1;           // NVML_DEVICE_MIG_ENABLE

union NvmlValue {
  double d;
  unsigned int ui;
  unsigned long ul;
  unsigned long long ull;
  long long sll;
  int si;
  unsigned short us;
};
struct NvmlFieldValue {
  unsigned int field_id;
  unsigned int scope_id;
  long long timestamp_us;
  long long latency_us;
  int value_type;  // 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint, 6 ushort
  NvmlReturn nvml_return;
  NvmlValue value;
};
struct NvmlUtilization {
  unsigned int gpu, memory;
};
struct NvmlMemory {
  unsigned long long total, free, used;
};

struct NvmlApi {
  void* lib = nullptr;
  NvmlReturn (*init)() = nullptr;
  NvmlReturn (*shutdown)() = nullptr;
  const char* (*error_string)(NvmlReturn) = nullptr;
  NvmlReturn (*count)(unsigned int*) = nullptr;
  NvmlReturn (*handle_by_index)(unsigned int, NvmlDevice*) = nullptr;
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned int) = nullptr;
  NvmlReturn (*name)(NvmlDevice, char*, unsigned int) = nullptr;
  NvmlReturn (*power_usage)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*total_energy)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlReturn (*field_values)(NvmlDevice, int, NvmlFieldValue*) = nullptr;
  NvmlReturn (*enforced_limit)(NvmlDevice, unsigned int*) = nullptr;
  NvmlReturn (*mig_mode)(NvmlDevice, unsigned int*, unsigned int*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned int*) = nullptr;
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*) = nullptr;

  std::string Error(NvmlReturn rc) const {
    const char* s = error_string ? error_string(rc) : nullptr;
    return s ? fmt::format("{} ({})", s, rc) : fmt::format("NVML error {}", rc);
  }
  void Close() {
    if (shutdown) shutdown();
    if (lib) dlclose(lib);
    lib = nullptr;
    shutdown = nullptr;
  }
};

template <typename F>
bool Bind(void* lib, const char* symbol, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, symbol));
  return *out != nullptr;
}

std::optional<double> FieldAsDouble(const NvmlFieldValue& v) {
  if (v.nvml_return != kNvmlSuccess) return std::nullopt;
  switch (v.value_type) {
    case 0:
      return v.value.d;
    case 1:
      return static_cast<double>(v.value.ui);
    case 2:
      return static_cast<double>(v.value.ul);
    case 3:
      return static_cast<double>(v.value.ull);
    case 4:
      return static_cast<double>(v.value.sll);
    case 5:
      return static_cast<double>(v.value.si);
    case 6:
      return static_cast<double>(v.value.us);
    default:
      return std::nullopt;
  }
}

class NvmlSampler : public PollingSampler {
 public:
  NvmlSampler(SourceInfo info, std::vector<GpuInfo> gpus, NvmlApi api,
              std::vector<NvmlDevice> devices, bool instant)
      : PollingSampler(std::move(info), std::move(gpus)),
        api_(api),
        devices_(std::move(devices)),
        instant_(instant) {}
  ~NvmlSampler() override {
    Stop();  // joins the polling thread before the library goes
  }

 protected:
  StatusOr<std::vector<PowerSample>> ReadOnce() override {
    std::vector<PowerSample> out;
    for (size_t i = 0; i < devices_.size(); ++i) {
      NvmlDevice d = devices_[i];
      PowerSample s;
      s.gpu = gpus()[i].key;
      int64_t t0 = MonotonicNowNs();
      if (instant_ && api_.field_values) {
        NvmlFieldValue v{};
        v.field_id = kFieldPowerInstant;
        if (api_.field_values(d, 1, &v) == kNvmlSuccess) {
          if (std::optional<double> mw = FieldAsDouble(v)) s.power_w = *mw / 1000.0;
        }
      } else {
        unsigned int mw = 0;
        if (api_.power_usage(d, &mw) == kNvmlSuccess) s.power_w = mw / 1000.0;
      }
      unsigned long long mj = 0;
      if (api_.total_energy && api_.total_energy(d, &mj) == kNvmlSuccess) s.energy_j = mj / 1000.0;
      int64_t t1 = MonotonicNowNs();
      s.t_ns = t0 + (t1 - t0) / 2;
      unsigned int value = 0;
      if (api_.temperature && api_.temperature(d, kTemperatureGpu, &value) == kNvmlSuccess)
        s.temp_c = value;
      if (api_.clock && api_.clock(d, kClockSm, &value) == kNvmlSuccess) s.sm_clock_mhz = value;
      NvmlUtilization u{};
      if (api_.utilization && api_.utilization(d, &u) == kNvmlSuccess) s.util_pct = u.gpu;
      NvmlMemory m{};
      if (api_.memory && api_.memory(d, &m) == kNvmlSuccess) s.mem_used_mib = m.used / 1048576.0;
      out.push_back(std::move(s));
    }
    return out;
  }
  void Finish() override { api_.Close(); }

 private:
  NvmlApi api_;
  std::vector<NvmlDevice> devices_;
  bool instant_;
};

}  // namespace

StatusOr<std::unique_ptr<Sampler>> OpenNvml(const std::string& library, const SourceOptions& o) {
  NvmlApi api;
  api.lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api.lib == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(fmt::format("{}: cannot load ({})", library, why ? why : "unknown"));
  }
  bool ok = Bind(api.lib, "nvmlInit_v2", &api.init) &&
            Bind(api.lib, "nvmlShutdown", &api.shutdown) &&
            Bind(api.lib, "nvmlDeviceGetCount_v2", &api.count) &&
            Bind(api.lib, "nvmlDeviceGetHandleByIndex_v2", &api.handle_by_index) &&
            Bind(api.lib, "nvmlDeviceGetUUID", &api.uuid) &&
            Bind(api.lib, "nvmlDeviceGetPowerUsage", &api.power_usage);
  if (!ok) {
    dlclose(api.lib);
    return Status::Unavailable(library +
                               ": lacks an NVML symbol servebench needs (nvmlInit_v2, "
                               "nvmlDeviceGetPowerUsage, ...)");
  }
  Bind(api.lib, "nvmlErrorString", &api.error_string);
  Bind(api.lib, "nvmlDeviceGetName", &api.name);
  Bind(api.lib, "nvmlDeviceGetTotalEnergyConsumption", &api.total_energy);
  Bind(api.lib, "nvmlDeviceGetFieldValues", &api.field_values);
  Bind(api.lib, "nvmlDeviceGetEnforcedPowerLimit", &api.enforced_limit);
  Bind(api.lib, "nvmlDeviceGetMigMode", &api.mig_mode);
  Bind(api.lib, "nvmlDeviceGetTemperature", &api.temperature);
  Bind(api.lib, "nvmlDeviceGetClockInfo", &api.clock);
  Bind(api.lib, "nvmlDeviceGetUtilizationRates", &api.utilization);
  Bind(api.lib, "nvmlDeviceGetMemoryInfo", &api.memory);
  NvmlReturn rc = api.init();
  if (rc != kNvmlSuccess) {
    std::string why = api.Error(rc);
    dlclose(api.lib);
    return Status::Unavailable(library + ": nvmlInit_v2 failed: " + why);
  }
  unsigned int count = 0;
  rc = api.count(&count);
  if (rc != kNvmlSuccess || count == 0) {
    std::string why = rc != kNvmlSuccess ? api.Error(rc) : "no GPU";
    api.Close();
    return Status::Unavailable(library + ": nvmlDeviceGetCount_v2: " + why);
  }
  std::vector<GpuInfo> listed;
  std::vector<NvmlDevice> handles;
  for (unsigned int i = 0; i < count; ++i) {
    NvmlDevice d = nullptr;
    if (api.handle_by_index(i, &d) != kNvmlSuccess) continue;
    GpuInfo g;
    g.index = static_cast<int>(i);
    char buf[96] = {};
    if (api.uuid(d, buf, sizeof(buf)) == kNvmlSuccess) g.uuid = buf;
    g.key = g.uuid.empty() ? std::to_string(i) : g.uuid;
    if (api.name && api.name(d, buf, sizeof(buf)) == kNvmlSuccess) g.name = buf;
    unsigned int current = 0, pending = 0;
    if (api.mig_mode && api.mig_mode(d, &current, &pending) == kNvmlSuccess)
      g.mig_enabled = current == kMigEnabled;
    unsigned int mw = 0;
    if (api.enforced_limit && api.enforced_limit(d, &mw) == kNvmlSuccess)
      g.power_limit_w = mw / 1000.0;
    listed.push_back(g);
    handles.push_back(d);
  }
  StatusOr<std::vector<GpuInfo>> chosen = SelectGpus(listed, o, "NVML");
  if (!chosen.ok()) {
    api.Close();
    return chosen.status();
  }
  std::vector<NvmlDevice> devices;
  for (const GpuInfo& g : *chosen) {
    for (size_t i = 0; i < listed.size(); ++i) {
      if (listed[i].key == g.key) devices.push_back(handles[i]);
    }
  }
  bool instant = o.reading == PowerReading::kInstant;
  SourceInfo info;
  info.source = "nvml";
  info.field = instant ? "NVML_FI_DEV_POWER_INSTANT" : "nvmlDeviceGetPowerUsage";
  info.sensor_avg_s = instant ? 0.0 : 1.0;
  info.period_s = o.period_s;
  info.where = library;
  if (instant && !api.field_values) {
    api.Close();
    return Status::Unavailable(library +
                               ": no nvmlDeviceGetFieldValues for --power-reading instant");
  }
  return std::unique_ptr<Sampler>(
      new NvmlSampler(std::move(info), std::move(*chosen), api, std::move(devices), instant));
}

}  // namespace servebench::telemetry
