#include "capture/script_run.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "common/atomic_file.h"
#include "engine/supervisor.h"

namespace servebench::capture {
namespace {

// The real `name` (sleep, sed, timeout, python3), which the stand-ins exec: a stand-in
// server sleeps to stay alive (the name `sleep` itself is a stand-in, so that scripts'
// polling loops do not wait), sed is passed through unless it patches the image, and
// Python runs a script's inline helpers. `name` itself when neither folder has it.
std::string Real(const std::string& name) {
  for (const std::string dir : {"/usr/bin/", "/bin/"})
    if (::access((dir + name).c_str(), X_OK) == 0) return dir + name;
  return name;
}

// Lifetime of a stand-in server past the script's timeout: a backstop should the
// supervisor's group kill never come (the capture itself killed).
constexpr double kServerLifetimeMarginS = 60;

}  // namespace

StatusOr<ScriptRun> RunScript(Sandbox& sandbox, const JobEnvironment& job, double timeout_s) {
  if (job.script.empty()) return Status::InvalidArgument("no script to run");
  SB_RETURN_IF_ERROR(sandbox.Reset());
  ScriptRun run;
  for (const auto& [name, value] : job.vars) run.env[name] = sandbox.ToSandbox(value);
  run.env["PATH"] =
      sandbox.bin_dir() + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  run.env["HOME"] = sandbox.dir() + "/home";
  run.env["TMPDIR"] = sandbox.dir() + "/tmp";
  run.env["SERVEBENCH_CAPTURE_DIR"] = sandbox.dir() + "/cap";
  run.env["SERVEBENCH_CAPTURE_SANDBOX"] = sandbox.dir();
  run.env["SERVEBENCH_CAPTURE_STANDIN"] = sandbox.bin_dir() + "/.standin";
  run.env["SERVEBENCH_CAPTURE_SLEEP"] = Real("sleep");
  run.env["SERVEBENCH_CAPTURE_SED"] = Real("sed");
  run.env["SERVEBENCH_CAPTURE_HUB_REVISION"] = kStandinHubRevision;
  run.env["SERVEBENCH_CAPTURE_TIMEOUT"] = Real("timeout");
  // The host's Python runs a script's inline helpers; without one they print nothing.
  const std::string python = Real("python3");
  if (python.front() == '/') run.env["SERVEBENCH_CAPTURE_PYTHON"] = python;
  run.env["SERVEBENCH_CAPTURE_IMAGE_SITE_PACKAGES"] = sandbox.image_site_packages();
  run.env["SERVEBENCH_CAPTURE_LIFETIME_S"] =
      std::to_string(static_cast<int>(std::ceil(timeout_s + kServerLifetimeMarginS)));

  engine::ServerCommand command;
  command.engine = "capture";
  command.argv = {"bash", job.script};
  command.env = run.env;
  command.inherit_environment = false;
  command.working_dir = sandbox.workspace();
  engine::SupervisorOptions options;
  options.log_path = sandbox.dir() + "/cap/script.log";
  options.stop_grace_s = 1;
  SB_ASSIGN_OR_RETURN(auto supervisor, engine::Supervisor::Start(command, options));
  auto exit = supervisor->WaitForExit(static_cast<int64_t>(timeout_s * 1000));
  if (exit) {
    run.exit_code = exit->exit_code;
  } else {
    run.timed_out = true;
  }
  (void)supervisor->Stop();  // the stand-in servers the script left behind
  auto output = ReadFile(options.log_path);
  if (output.ok()) run.output = *output;
  SB_ASSIGN_OR_RETURN(run.calls, ReadCallRecords(sandbox.calls_dir()));
  return run;
}

}  // namespace servebench::capture
