#include "telemetry/amdsmi_sampler.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "common/clock.h"
#include "telemetry/gpu_selection.h"

namespace servebench::telemetry {
namespace {

using AmdsmiStatus = int;
using AmdsmiHandle = void*;
constexpr AmdsmiStatus kAmdsmiSuccess = 0;
constexpr uint64_t kInitAmdGpus = 1u << 1;  // AMDSMI_INIT_AMD_GPUS
constexpr double kMaxPlausibleW = 10'000;   // above this a field is N/A or another layout

// Bytes enough for every amdsmi_power_info_t revision (the current one is 192).
struct PowerInfoBuffer {
  alignas(8) unsigned char bytes[512];
};
struct EngineUsage {
  uint32_t gfx_activity, umc_activity, mm_activity, reserved[13];
};

struct AmdsmiApi {
  void* lib = nullptr;
  AmdsmiStatus (*init)(uint64_t) = nullptr;
  AmdsmiStatus (*shut_down)() = nullptr;
  AmdsmiStatus (*sockets)(uint32_t*, AmdsmiHandle*) = nullptr;
  AmdsmiStatus (*processors)(AmdsmiHandle, uint32_t*, AmdsmiHandle*) = nullptr;
  AmdsmiStatus (*uuid)(AmdsmiHandle, unsigned int*, char*) = nullptr;
  AmdsmiStatus (*power_info)(AmdsmiHandle, void*) = nullptr;
  AmdsmiStatus (*energy_count)(AmdsmiHandle, uint64_t*, float*, uint64_t*) = nullptr;
  AmdsmiStatus (*activity)(AmdsmiHandle, EngineUsage*) = nullptr;
  void Close() {
    if (shut_down) shut_down();
    if (lib) dlclose(lib);
    lib = nullptr;
    shut_down = nullptr;
  }
};

template <typename F>
bool Bind(void* lib, const char* symbol, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, symbol));
  return *out != nullptr;
}

std::optional<double> Plausible(uint64_t w) {
  if (w == 0xFFFF || w == 0xFFFFFFFFu || w == UINT64_MAX) return std::nullopt;
  double v = static_cast<double>(w);
  if (v < 0 || v > kMaxPlausibleW) return std::nullopt;
  return v;
}

// socket_power (u64 at 0), else current_socket_power (u32 at 8), else
// average_socket_power (u32 at 12): whichever is not N/A, as amd-smi does.
std::optional<double> SocketPower(const PowerInfoBuffer& b) {
  uint64_t socket = 0;
  uint32_t current = 0, average = 0;
  std::memcpy(&socket, b.bytes, 8);
  std::memcpy(&current, b.bytes + 8, 4);
  std::memcpy(&average, b.bytes + 12, 4);
  if (auto v = Plausible(socket); v && *v > 0) return v;
  if (auto v = Plausible(current); v && *v > 0) return v;
  if (auto v = Plausible(average)) return v;
  return std::nullopt;
}

class AmdsmiSampler : public PollingSampler {
 public:
  AmdsmiSampler(SourceInfo info, std::vector<GpuInfo> gpus, AmdsmiApi api,
                std::vector<AmdsmiHandle> devices)
      : PollingSampler(std::move(info), std::move(gpus)), api_(api), devices_(std::move(devices)) {}
  ~AmdsmiSampler() override { Stop(); }

 protected:
  StatusOr<std::vector<PowerSample>> ReadOnce() override {
    std::vector<PowerSample> out;
    for (size_t i = 0; i < devices_.size(); ++i) {
      PowerSample s;
      s.gpu = gpus()[i].key;
      int64_t t0 = MonotonicNowNs();
      PowerInfoBuffer b{};
      if (api_.power_info(devices_[i], &b) == kAmdsmiSuccess) s.power_w = SocketPower(b);
      uint64_t acc = 0, ts = 0;
      float resolution = 0;
      if (api_.energy_count &&
          api_.energy_count(devices_[i], &acc, &resolution, &ts) == kAmdsmiSuccess &&
          resolution > 0) {
        s.energy_j = static_cast<double>(acc) * static_cast<double>(resolution) / 1e6;
      }
      int64_t t1 = MonotonicNowNs();
      s.t_ns = t0 + (t1 - t0) / 2;
      EngineUsage u{};
      if (api_.activity && api_.activity(devices_[i], &u) == kAmdsmiSuccess &&
          u.gfx_activity <= 100) {
        s.util_pct = u.gfx_activity;
      }
      out.push_back(std::move(s));
    }
    return out;
  }
  void Finish() override { api_.Close(); }

 private:
  AmdsmiApi api_;
  std::vector<AmdsmiHandle> devices_;
};

}  // namespace

StatusOr<std::unique_ptr<Sampler>> OpenAmdsmi(const std::string& library, const SourceOptions& o) {
  AmdsmiApi api;
  api.lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api.lib == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(fmt::format("{}: cannot load ({})", library, why ? why : "unknown"));
  }
  bool ok = Bind(api.lib, "amdsmi_init", &api.init) &&
            Bind(api.lib, "amdsmi_shut_down", &api.shut_down) &&
            Bind(api.lib, "amdsmi_get_socket_handles", &api.sockets) &&
            Bind(api.lib, "amdsmi_get_processor_handles", &api.processors) &&
            Bind(api.lib, "amdsmi_get_power_info", &api.power_info);
  if (!ok) {
    dlclose(api.lib);
    return Status::Unavailable(library +
                               ": lacks an amdsmi symbol servebench needs (amdsmi_init, "
                               "amdsmi_get_power_info, ...)");
  }
  Bind(api.lib, "amdsmi_get_gpu_device_uuid", &api.uuid);
  Bind(api.lib, "amdsmi_get_energy_count", &api.energy_count);
  Bind(api.lib, "amdsmi_get_gpu_activity", &api.activity);
  AmdsmiStatus rc = api.init(kInitAmdGpus);
  if (rc != kAmdsmiSuccess) {
    dlclose(api.lib);
    return Status::Unavailable(fmt::format("{}: amdsmi_init failed (status {})", library, rc));
  }
  uint32_t n_sockets = 0;
  api.sockets(&n_sockets, nullptr);
  std::vector<AmdsmiHandle> sockets(n_sockets);
  if (n_sockets > 0) api.sockets(&n_sockets, sockets.data());
  std::vector<GpuInfo> listed;
  std::vector<AmdsmiHandle> handles;
  for (AmdsmiHandle socket : sockets) {
    uint32_t n = 0;
    if (api.processors(socket, &n, nullptr) != kAmdsmiSuccess || n == 0) continue;
    std::vector<AmdsmiHandle> procs(n);
    if (api.processors(socket, &n, procs.data()) != kAmdsmiSuccess) continue;
    for (uint32_t i = 0; i < n; ++i) {
      GpuInfo g;
      g.index = static_cast<int>(listed.size());
      char buf[96] = {};
      unsigned int len = sizeof(buf);
      if (api.uuid && api.uuid(procs[i], &len, buf) == kAmdsmiSuccess) g.uuid = buf;
      g.key = g.uuid.empty() ? std::to_string(g.index) : g.uuid;
      listed.push_back(g);
      handles.push_back(procs[i]);
    }
  }
  if (listed.empty()) {
    api.Close();
    return Status::Unavailable(library + ": amdsmi lists no GPU");
  }
  StatusOr<std::vector<GpuInfo>> chosen = SelectGpus(listed, o, "amdsmi");
  if (!chosen.ok()) {
    api.Close();
    return chosen.status();
  }
  std::vector<AmdsmiHandle> devices;
  for (const GpuInfo& g : *chosen) {
    for (size_t i = 0; i < listed.size(); ++i) {
      if (listed[i].key == g.key) devices.push_back(handles[i]);
    }
  }
  SourceInfo info;
  info.source = "amdsmi";
  info.field = "socket_power";
  info.period_s = o.period_s;
  info.where = library;
  auto sampler =
      std::make_unique<AmdsmiSampler>(std::move(info), std::move(*chosen), api, std::move(devices));
  return std::unique_ptr<Sampler>(std::move(sampler));
}

}  // namespace servebench::telemetry
