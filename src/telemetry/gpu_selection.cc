#include "telemetry/gpu_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace servebench::telemetry {
namespace {

std::vector<std::string> SplitIds(const std::string& value) {
  std::vector<std::string> ids;
  std::stringstream ss(value);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) ids.push_back(item);
  }
  return ids;
}

bool IsIndex(const std::string& id) {
  return !id.empty() &&
         std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool SameUuid(std::string a, std::string b) {
  auto lower = [](std::string& s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  lower(a);
  lower(b);
  return !a.empty() && a == b;
}

}  // namespace

GpuIdChoice ChooseGpuIds(const TelemetrySettings& s, TelemetrySource source,
                         const GetEnv& get_env) {
  GpuIdChoice c;
  if (!s.gpu_ids.empty()) {
    c.ids = s.gpu_ids;
    c.explicit_ids = true;
    c.from = "--gpu-ids";
    return c;
  }
  std::vector<const char*> vars;
  if (source == TelemetrySource::kNvml || source == TelemetrySource::kNvidiaSmi) {
    vars = {"CUDA_VISIBLE_DEVICES"};
  } else if (source == TelemetrySource::kAmdsmi || source == TelemetrySource::kAmdSmi) {
    vars = {"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"};
  }
  // The engine's environment first: it is what the engine's runtime reads.
  for (const char* var : vars) {
    auto it = s.engine_env.find(var);
    if (it == s.engine_env.end() || it->second.empty()) continue;
    c.ids = SplitIds(it->second);
    c.from = std::string("serve.env ") + var;
    return c;
  }
  for (const char* var : vars) {
    const char* v = get_env(var);
    if (v == nullptr || *v == '\0') continue;
    c.ids = SplitIds(v);
    c.from = var;
    return c;
  }
  c.from = "all listed";
  return c;
}

StatusOr<std::vector<GpuInfo>> SelectGpus(const std::vector<GpuInfo>& listed,
                                          const SourceOptions& o, const std::string& source) {
  if (o.gpu_ids.empty()) return listed;
  std::vector<GpuInfo> out;
  std::vector<std::string> unknown;
  for (const std::string& id : o.gpu_ids) {
    auto it = std::find_if(listed.begin(), listed.end(), [&](const GpuInfo& g) {
      return IsIndex(id) ? g.index == std::stoi(id) : (SameUuid(g.uuid, id) || SameUuid(g.key, id));
    });
    if (it == listed.end()) {
      unknown.push_back(id);
    } else if (std::none_of(out.begin(), out.end(),
                            [&](const GpuInfo& g) { return g.key == it->key; })) {
      out.push_back(*it);
    }
  }
  if (unknown.empty()) return out;
  std::string known;
  for (const GpuInfo& g : listed) {
    known += fmt::format("{}{} ({})", known.empty() ? "" : ", ", g.index,
                         g.uuid.empty() ? g.key : g.uuid);
  }
  std::string bad;
  for (const std::string& u : unknown) bad += (bad.empty() ? "" : ",") + u;
  std::string message =
      fmt::format("GPU id {} is not among the GPUs {} lists: {}", bad, source, known);
  if (o.gpu_ids_explicit) return Status::InvalidArgument("--gpu-ids: " + message);
  return Status::FailedPrecondition(message);
}

}  // namespace servebench::telemetry
