#include "cli/power_flags.h"

namespace servebench::cli {

void AddPowerFlags(CLI::App& app, PowerFlags* f, double idle_default_s) {
  f->idle_power_s = idle_default_s;
  app.add_option("--gpu-telemetry", f->gpu_telemetry,
                 "auto | nvml | nvidia-smi | amdsmi | amd-smi | dcgm | none (auto: the server's "
                 "own DCGM-shaped /metrics, then NVML, nvidia-smi, amdsmi, amd-smi, the DCGM "
                 "exporter; none with a note)");
  app.add_option("--gpu-ids", f->gpu_ids,
                 "GPUs to measure, indices or UUIDs (default CUDA_VISIBLE_DEVICES / "
                 "ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES, else every GPU listed)")
      ->delimiter(',');
  app.add_option("--power-sample-period", f->settings.sample_period_s,
                 "seconds between power samples (amd-smi: whole seconds; the simulated engine: "
                 "simulated seconds)");
  app.add_option("--power-reading", f->power_reading,
                 "average (NVIDIA's 1 s mean, what InferenceX integrates) | instant");
  app.add_option("--dcgm-url", f->dcgm_urls, "dcgm-exporter /metrics URL(s)")
      ->delimiter(',')
      ->default_str("http://localhost:9400/metrics,http://localhost:9401/metrics");
  app.add_flag("--require-power", f->settings.require_power,
               "invalid power makes the run invalid (also REQUIRE_POWER=1)");
  app.add_option("--idle-power-s", f->idle_power_s,
                 "seconds of idle power sampling (engine loaded, no traffic; 0 = none)");
  app.add_option("--nvml-library", f->settings.nvml_library, "the NVML library to dlopen");
  app.add_option("--amdsmi-library", f->settings.amdsmi_library, "the amdsmi library to dlopen");
}

StatusOr<telemetry::TelemetrySettings> ResolvePowerFlags(const PowerFlags& f) {
  telemetry::TelemetrySettings s = f.settings;
  SB_ASSIGN_OR_RETURN(s.source, telemetry::ParseTelemetrySource(f.gpu_telemetry));
  SB_ASSIGN_OR_RETURN(s.reading, telemetry::ParsePowerReading(f.power_reading));
  s.gpu_ids = f.gpu_ids;
  if (!f.dcgm_urls.empty()) s.dcgm_urls = f.dcgm_urls;
  SB_RETURN_IF_ERROR(telemetry::Validate(s));
  return s;
}

}  // namespace servebench::cli
