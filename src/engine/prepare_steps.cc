#include "engine/prepare_steps.h"

#include <fmt/format.h>

#include <optional>

#include "engine/adapter.h"
#include "engine/command_display.h"
#include "engine/engine_catalog.h"
#include "engine/supervisor.h"

namespace servebench::engine {

Status RunPrepareSteps(const ServerCommand& command, const std::string& log_prefix,
                       double timeout_s, EngineFailure* failure) {
  for (size_t i = 0; i < command.prepare.size(); ++i) {
    ServerCommand step;
    step.engine = command.engine;
    step.argv = command.prepare[i];
    step.env = command.env;
    step.working_dir = command.working_dir;
    SupervisorOptions options;
    options.log_path = fmt::format("{}-{}.log", log_prefix, i + 1);
    const std::string shown = JoinForShell(step.argv);
    auto started = Supervisor::Start(step, options);
    if (!started.ok()) {
      failure->failure_class = failure_class::kInfraStartFailed;
      failure->summary = fmt::format("{}: prepare step {} `{}` could not start: {}",
                                     failure_class::kInfraStartFailed.name(), i + 1, shown,
                                     started.status().message());
      return Status::FailedPrecondition(failure->summary);
    }
    Supervisor& sup = **started;
    const int64_t timeout_ms = timeout_s > 0 ? static_cast<int64_t>(timeout_s * 1000) : -1;
    std::optional<ExitInfo> exit;
    for (int64_t waited = 0; !exit && (timeout_ms < 0 || waited < timeout_ms); waited += 1000) {
      exit = sup.WaitForExit(1000);
    }
    if (exit && exit->exit_code == 0) continue;
    std::string what = exit ? fmt::format("prepare step {} `{}` {}", i + 1, shown, exit->Describe())
                            : fmt::format("prepare step {} `{}` still running after {} s", i + 1,
                                          shown, FormatDecimal(timeout_s));
    (void)sup.Stop();
    auto catalog = DefaultEngineCatalog();
    if (catalog.ok()) {
      *failure = ClassifyLogFile(options.log_path, Situation::kDiedBeforeReady, what,
                                 (*catalog)->signatures);
    }
    if (!catalog.ok() || failure->matched_line.empty()) {
      failure->failure_class = failure_class::kInfraPrepareFailed;
      failure->summary = fmt::format("{}: {} (log {})", failure_class::kInfraPrepareFailed.name(),
                                     what, options.log_path);
    }
    return Status::FailedPrecondition(failure->summary);
  }
  return Status::Ok();
}

}  // namespace servebench::engine
