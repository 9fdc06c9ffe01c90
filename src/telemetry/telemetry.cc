#include "telemetry/telemetry.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>

#include "telemetry/amdsmi_sampler.h"
#include "telemetry/nvml_sampler.h"
#include "telemetry/smi_samplers.h"

namespace servebench::telemetry {
namespace {

StatusOr<std::unique_ptr<Sampler>> OpenOne(TelemetrySource source,
                                           const std::vector<std::string>& urls,
                                           const TelemetrySettings& s, const TimeAnchor& anchor,
                                           const HttpGet& get, const GetEnv& env,
                                           std::vector<std::string>* notes) {
  GpuIdChoice ids = ChooseGpuIds(s, source, env);
  SourceOptions o;
  o.gpu_ids = ids.ids;
  o.gpu_ids_explicit = ids.explicit_ids;
  o.period_s = s.sample_period_s;
  o.reading = s.reading;
  o.anchor = anchor;
  StatusOr<std::unique_ptr<Sampler>> opened = Status::Internal("no source");
  switch (source) {
    case TelemetrySource::kNvml:
      opened = OpenNvml(s.nvml_library, o);
      break;
    case TelemetrySource::kNvidiaSmi:
      opened = OpenNvidiaSmi(s.nvidia_smi, o);
      break;
    case TelemetrySource::kAmdsmi:
      opened = OpenAmdsmi(s.amdsmi_library, o);
      break;
    case TelemetrySource::kAmdSmi:
      opened = OpenAmdSmi(s.amd_smi, o);
      break;
    case TelemetrySource::kDcgm:
      opened = OpenDcgmEndpoints(urls, o, get);
      break;
    default:
      break;
  }
  if (opened.ok() && !ids.ids.empty()) notes->push_back(fmt::format("GPU ids from {}", ids.from));
  return opened;
}

}  // namespace

bool RequirePowerFromEnv(const GetEnv& get_env) {
  const char* v = get_env ? get_env("REQUIRE_POWER") : std::getenv("REQUIRE_POWER");
  if (v == nullptr) return false;
  std::string s = v;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "1" || s == "true" || s == "yes";
}

StatusOr<OpenedSampler> OpenSampler(const TelemetrySettings& s, const TimeAnchor& anchor,
                                    const HttpGet& http_get, const GetEnv& get_env) {
  SB_RETURN_IF_ERROR(Validate(s));
  GetEnv env =
      get_env ? get_env : [](const char* name) -> const char* { return std::getenv(name); };
  OpenedSampler out;
  if (s.source == TelemetrySource::kNone) {
    out.unavailable = "--gpu-telemetry none";
    return out;
  }
  if (s.source != TelemetrySource::kAuto) {
    // Named: the first URL that answers for dcgm; otherwise exactly that source.
    std::vector<std::string> urls =
        s.source == TelemetrySource::kDcgm ? s.dcgm_urls : std::vector<std::string>{""};
    std::string failures;
    for (const std::string& url : urls) {
      StatusOr<std::unique_ptr<Sampler>> opened =
          OpenOne(s.source, {url}, s, anchor, http_get, env, &out.notes);
      if (opened.ok()) {
        out.sampler = std::move(*opened);
        return out;
      }
      if (opened.status().code() == StatusCode::kInvalidArgument) return opened.status();
      failures += (failures.empty() ? "" : "; ") + opened.status().message();
    }
    return Status::InvalidArgument(fmt::format("--gpu-telemetry {}: cannot be used here: {}",
                                               TelemetrySourceName(s.source), failures));
  }
  // auto: the server's own endpoint (an engine that exports its GPUs' power knows
  // them best; the simulated engine does), then a serve session's workers' endpoints
  // together (each simulated worker exports its own GPUs), then the local vendor
  // sources, then the DCGM exporters.
  std::vector<std::pair<TelemetrySource, std::vector<std::string>>> order;
  if (!s.server_metrics_url.empty())
    order.push_back({TelemetrySource::kDcgm, {s.server_metrics_url}});
  if (!s.session_workers.empty()) {
    std::vector<std::string> workers;
    for (const SessionWorker& w : s.session_workers) workers.push_back(w.metrics_url);
    order.push_back({TelemetrySource::kDcgm, workers});
  }
  for (TelemetrySource local : {TelemetrySource::kNvml, TelemetrySource::kNvidiaSmi,
                                TelemetrySource::kAmdsmi, TelemetrySource::kAmdSmi}) {
    order.push_back({local, {}});
  }
  for (const std::string& url : s.dcgm_urls) order.push_back({TelemetrySource::kDcgm, {url}});
  std::string tried;
  for (const auto& [source, urls] : order) {
    StatusOr<std::unique_ptr<Sampler>> opened =
        OpenOne(source, urls, s, anchor, http_get, env, &out.notes);
    if (opened.ok()) {
      out.sampler = std::move(*opened);
      out.notes.push_back(fmt::format("--gpu-telemetry auto chose {} ({})",
                                      TelemetrySourceName(source), out.sampler->info().where));
      return out;
    }
    if (opened.status().code() == StatusCode::kInvalidArgument) return opened.status();
    tried += fmt::format("{}{}: {}", tried.empty() ? "" : "; ", TelemetrySourceName(source),
                         opened.status().message());
  }
  out.unavailable = "no GPU telemetry source answered (" + tried + ")";
  return out;
}

Status CheckLocalSourceOpens(const TelemetrySettings& s, const GetEnv& get_env) {
  switch (s.source) {
    case TelemetrySource::kNvml:
    case TelemetrySource::kNvidiaSmi:
    case TelemetrySource::kAmdsmi:
    case TelemetrySource::kAmdSmi:
      break;
    case TelemetrySource::kAuto:
    case TelemetrySource::kDcgm:
    case TelemetrySource::kNone:
      return Status::Ok();
  }
  HttpGet no_http = [](const std::string& url, double) -> StatusOr<std::string> {
    return Status::Internal("no HTTP for a local source (" + url + ")");
  };
  return OpenSampler(s, TimeAnchor::Now(), no_http, get_env).status();
}

}  // namespace servebench::telemetry
