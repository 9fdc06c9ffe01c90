#include "telemetry/telemetry_settings.h"

#include <fmt/format.h>

namespace servebench::telemetry {

std::string_view TelemetrySourceName(TelemetrySource source) {
  switch (source) {
    case TelemetrySource::kAuto:
      return "auto";
    case TelemetrySource::kNvml:
      return "nvml";
    case TelemetrySource::kNvidiaSmi:
      return "nvidia-smi";
    case TelemetrySource::kAmdsmi:
      return "amdsmi";
    case TelemetrySource::kAmdSmi:
      return "amd-smi";
    case TelemetrySource::kDcgm:
      return "dcgm";
    case TelemetrySource::kNone:
      return "none";
  }
  return "none";
}

StatusOr<TelemetrySource> ParseTelemetrySource(std::string_view name) {
  for (TelemetrySource s :
       {TelemetrySource::kAuto, TelemetrySource::kNvml, TelemetrySource::kNvidiaSmi,
        TelemetrySource::kAmdsmi, TelemetrySource::kAmdSmi, TelemetrySource::kDcgm,
        TelemetrySource::kNone}) {
    if (TelemetrySourceName(s) == name) return s;
  }
  return Status::InvalidArgument(fmt::format(
      "--gpu-telemetry '{}': one of auto, nvml, nvidia-smi, amdsmi, amd-smi, dcgm, none", name));
}

std::string_view PowerReadingName(PowerReading reading) {
  return reading == PowerReading::kInstant ? "instant" : "average";
}

StatusOr<PowerReading> ParsePowerReading(std::string_view name) {
  if (name == "average") return PowerReading::kAverage;
  if (name == "instant") return PowerReading::kInstant;
  return Status::InvalidArgument(fmt::format(
      "--power-reading '{}': average (the 1 s averaged board power InferenceX integrates) or "
      "instant",
      name));
}

Status Validate(const TelemetrySettings& s) {
  if (!(s.sample_period_s >= 0.01 && s.sample_period_s <= 60)) {
    return Status::InvalidArgument(fmt::format(
        "--power-sample-period {}: must be between 0.01 and 60 seconds (InferenceX samples at 1)",
        s.sample_period_s));
  }
  for (const std::string& id : s.gpu_ids) {
    if (id.empty() || id.find_first_of(" ,\t") != std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "--gpu-ids '{}': each id is a GPU index (0, 1, ...) or a UUID (GPU-...), comma-separated",
          id));
    }
    if (id.rfind("MIG-", 0) == 0) {
      return Status::InvalidArgument(fmt::format(
          "--gpu-ids {}: a MIG instance has no power of its own; name its physical GPU", id));
    }
  }
  if (s.source == TelemetrySource::kDcgm && s.dcgm_urls.empty()) {
    return Status::InvalidArgument("--gpu-telemetry dcgm needs --dcgm-url");
  }
  for (const std::string& u : s.dcgm_urls) {
    if (u.rfind("http://", 0) != 0 && u.rfind("https://", 0) != 0) {
      return Status::InvalidArgument(
          fmt::format("--dcgm-url '{}': an http(s):// URL of a dcgm-exporter /metrics", u));
    }
  }
  return Status::Ok();
}

}  // namespace servebench::telemetry
