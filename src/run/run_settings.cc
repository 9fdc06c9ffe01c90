#include "run/run_settings.h"

#include <fmt/format.h>

#include <cmath>

#include "common/calendar_date.h"
#include "common/limits.h"
#include "common/safe_id.h"
#include "engine/engine.h"
#include "store/store.h"

namespace servebench::run {

Status Validate(const RunSettings& s) {
  auto bad = [](std::string m) { return Status::InvalidArgument(std::move(m)); };
  if (s.out_dir.empty()) return bad("--out is empty: give the results folder");
  SB_RETURN_IF_ERROR(store::CheckStoreUrl(s.db_url));
  auto seconds = [&](const char* flag, double v, bool zero_ok) -> Status {
    if (!(v >= 0) || v > limits::kMaxDeadlineSeconds || (!zero_ok && v == 0)) {
      return bad(fmt::format("{} {}: must be {} .. {:.0f} seconds", flag, v, zero_ok ? "0" : "> 0",
                             limits::kMaxDeadlineSeconds));
    }
    return Status::Ok();
  };
  SB_RETURN_IF_ERROR(seconds("--request-timeout", s.request_timeout_s, false));
  SB_RETURN_IF_ERROR(seconds("--readiness-timeout", s.readiness_timeout_s, true));
  if (!(s.client_issue_delay_limit_ms > 0) || !std::isfinite(s.client_issue_delay_limit_ms)) {
    return bad(fmt::format(
        "--issue-delay-limit-ms {}: must be a number > 0 (metrics.md section 8 uses 1; raise it "
        "only on a shared machine)",
        s.client_issue_delay_limit_ms));
  }
  if (s.default_prompts_per_concurrency < 1 ||
      s.default_prompts_per_concurrency > limits::kMaxPromptsPerRun) {
    return bad(fmt::format("--prompts-per-concurrency {}: must be 1 .. {}",
                           s.default_prompts_per_concurrency, limits::kMaxPromptsPerRun));
  }
  if (s.max_restarts_per_session < 0) {
    return bad(
        fmt::format("max_restarts_per_session {}: must be >= 0", s.max_restarts_per_session));
  }
  if (!s.build.date.empty()) SB_RETURN_IF_ERROR(CheckCalendarDate("--build-date", s.build.date));
  if (!s.run_id.empty()) SB_RETURN_IF_ERROR(CheckSafeId("--run-id", s.run_id));
  engine::ContainerProfile::Kind kind;
  if (!engine::ParseContainerKind(s.container, &kind)) {
    return bad(fmt::format("--container '{}': must be docker, podman, enroot or srun (or none)",
                           s.container));
  }
  for (const std::string& m : s.container_mounts) {
    if (m.find(':') == std::string::npos || m.front() == ':') {
      return bad(fmt::format("--container-mount '{}': write host:container", m));
    }
  }
  SB_RETURN_IF_ERROR(telemetry::Validate(s.telemetry));
  if (!(s.idle_power_s >= 0) || s.idle_power_s > 3600) {
    return bad(fmt::format(
        "--idle-power-s {}: seconds of idle power sampling per serve session, 0 (none) .. 3600 "
        "(10 is the rule, docs/power.md)",
        s.idle_power_s));
  }
  return Status::Ok();
}

}  // namespace servebench::run
