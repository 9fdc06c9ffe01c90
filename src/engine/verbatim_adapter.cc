// A verbatim command (serve.command, recipe/point.h): the argv as written, run in
// the work dir where its files are written, listening on its own port. Nothing is
// added to it; the ServeSpec's other fields describe the deployment only.
#include <fmt/format.h>

#include <filesystem>

#include "engine/adapters_internal.h"

namespace servebench::engine::internal {
namespace {

// Supervisor defaults for an engine servebench has no flag table for (atom): the
// same as the table's real engines (vllm, sglang, trtllm) use.
constexpr double kUntabledReadinessTimeoutS = 1800;
constexpr int kUntabledReadinessPollMs = 1000;

// How long a router may take to answer once the engine behind it is ready: it only
// connects to a worker that is up (vllm-router, sglang_router start in seconds).
constexpr double kRouterReadinessTimeoutS = 300;

// "vllm-router"; "sglang_router.launch_router" for `python3 -m MODULE ...`: the name
// its log and its container are known by.
std::string RouterProgram(const std::vector<std::string>& argv) {
  std::string program = std::filesystem::path(argv[0]).filename().string();
  for (size_t i = 1; i + 1 < argv.size(); ++i)
    if (program.rfind("python", 0) == 0 && argv[i] == "-m") return argv[i + 1];
  return program;
}

bool StaysInside(const std::string& path) {
  if (path.empty() || path.front() == '/') return false;
  std::filesystem::path normal = std::filesystem::path(path).lexically_normal();
  return !normal.empty() && *normal.begin() != ".." && normal != ".";
}

}  // namespace

StatusOr<ServerCommand> RenderVerbatim(const recipe::ServeSpec& spec, const RenderOptions& options,
                                       const EngineFlagTable* table) {
  const recipe::VerbatimCommand& c = spec.command;
  if (spec.engine.empty()) {
    return Status::InvalidArgument(
        "serve.engine is empty: a verbatim command still names its engine (for readiness "
        "defaults, version probes and failure classes)");
  }
  if (spec.multinode || spec.disagg) {
    return Status::InvalidArgument(
        fmt::format("serve.multinode = {}, serve.disagg = {}: a verbatim command starts one "
                    "single-node server",
                    spec.multinode, spec.disagg));
  }
  if (!spec.extra_args.empty()) {
    return Status::InvalidArgument(
        fmt::format("serve.extra_args[0] = \"{}\": serve.command runs as written, nothing is "
                    "appended to it; put the arguments in serve.command.argv",
                    spec.extra_args[0]));
  }
  if (c.port < 1 || c.port > 65535) {
    return Status::InvalidArgument(
        fmt::format("serve.command.port = {}: the port the command listens on, 1..65535", c.port));
  }
  ServerCommand out;
  out.engine = spec.engine;
  out.argv = c.argv;
  out.env = spec.env;
  out.host = options.host.empty() ? "127.0.0.1" : options.host;
  out.port = c.port;  // the command's own port; the run's free port is not used
  out.readiness_timeout_s =
      table != nullptr ? table->readiness_timeout_s : kUntabledReadinessTimeoutS;
  out.readiness_poll_ms = table != nullptr ? table->readiness_poll_ms : kUntabledReadinessPollMs;
  if (spec.readiness_timeout_s > 0) out.readiness_timeout_s = spec.readiness_timeout_s;
  out.working_dir = options.work_dir;
  if (!c.folder.empty()) {
    if (options.container.kind == ContainerProfile::Kind::kNone || spec.image.empty()) {
      return Status::InvalidArgument(fmt::format(
          "serve.command.folder = \"{}\": the command names its files under {} (as "
          "InferenceX's container sees its checkout); run it in a container (--container "
          "docker, podman or srun, and serve.image) so servebench can mount its folder there",
          c.folder, c.folder));
    }
    out.container_dir = c.folder;
  }
  for (size_t i = 0; i < c.files.size(); ++i) {
    const recipe::CommandFile& f = c.files[i];
    if (!StaysInside(f.path)) {
      return Status::InvalidArgument(fmt::format(
          "serve.command.files[{}].path = \"{}\": must be relative to the command's folder and "
          "stay inside it",
          i, f.path));
    }
    out.files.push_back({options.work_dir + "/" + f.path, f.contents});
  }
  for (size_t i = 0; i < c.auxiliary.size(); ++i) {
    const recipe::AuxiliaryCommand& a = c.auxiliary[i];
    if (a.argv.empty()) {
      return Status::InvalidArgument(fmt::format(
          "serve.command.auxiliary[{}].argv is empty: give the server's program and arguments", i));
    }
    ServerCommand aux;
    aux.engine = std::filesystem::path(a.argv[0]).filename().string();
    aux.argv = a.argv;
    aux.env = a.env;
    aux.host = out.host;
    aux.working_dir = out.working_dir;
    aux.container_dir = out.container_dir;
    aux.files = out.files;  // written before it starts (a mooncake config it reads)
    out.auxiliary.push_back(std::move(aux));
  }
  if (!c.router.argv.empty()) {
    if (c.router.port < 1 || c.router.port > 65535 || c.router.port == c.port) {
      return Status::InvalidArgument(fmt::format(
          "serve.command.router.port = {}: the port the router listens on, 1..65535 and not the "
          "command's own ({})",
          c.router.port, c.port));
    }
    ServerCommand router;
    router.engine = RouterProgram(c.router.argv);
    router.argv = c.router.argv;
    router.env = c.router.env;
    router.host = out.host;
    router.port = c.router.port;
    router.working_dir = out.working_dir;
    router.container_dir = out.container_dir;
    // A router answers once its workers do; the engine's deadline already passed.
    router.readiness_timeout_s = kRouterReadinessTimeoutS;
    router.readiness_poll_ms = out.readiness_poll_ms;
    out.router.push_back(std::move(router));
  }
  return out;
}

}  // namespace servebench::engine::internal
