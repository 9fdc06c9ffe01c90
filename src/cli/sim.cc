// `servebench sim`: the simulated OpenAI-compatible engine (docs/simulator.md).
// Flags that mean the same as vLLM's carry vLLM's names; unknown flags are errors.
#include "sim/sim.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/sim_flags.h"
#include "common/exit_codes.h"
#include "sim/fidelity.h"
#include "sim/predict.h"
#include "sim/resolved_config.h"
#include "sim/router.h"

namespace servebench::cli {
namespace {

sim::SimServer* g_server = nullptr;
void OnSignal(int) {
  if (g_server) g_server->Stop();
}

// --fidelity: every published measurement predicted with this catalogue, the error
// per point and the medians (docs/simulator.md, "Fidelity").
int RunFidelity(const SimFlags& flags) {
  const sim::SimSettings& s = flags.settings;
  auto catalogue = s.catalogue_dir.empty() ? sim::Catalogue::BuiltIn()
                                           : sim::Catalogue::FromDir(s.catalogue_dir);
  StatusOr<std::vector<sim::PublishedPoint>> points = sim::BuiltInPublishedPoints();
  if (!flags.published_points.empty()) {
    std::ifstream in(flags.published_points);
    if (!in) {
      std::fprintf(stderr, "servebench sim: --published-points %s: cannot open\n",
                   flags.published_points.c_str());
      return kExitInvalidInput;
    }
    points = sim::ParsePublishedPoints(std::string(std::istreambuf_iterator<char>(in), {}));
  }
  StatusOr<sim::FidelityReport> report =
      !catalogue.ok() ? StatusOr<sim::FidelityReport>(catalogue.status())
      : !points.ok()  ? StatusOr<sim::FidelityReport>(points.status())
                      : sim::EvaluateFidelity(*catalogue, *points);
  if (!report.ok()) {
    std::fprintf(stderr, "servebench sim: %s\n", report.status().message().c_str());
    return kExitInvalidInput;
  }
  std::printf("%s", sim::FidelityTable(*report).c_str());
  return kExitOk;
}

int RunSim(int argc, char** argv) {
  SimFlags flags;
  sim::SimSettings& s = flags.settings;
  CLI::App app{
      "servebench sim: a simulated OpenAI-compatible serving engine with a performance model"};
  app.set_help_flag("-h,--help", "this text");
  AddSimFlags(app, &flags);
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (Status st = FinishSimFlags(&flags); !st.ok()) {
    std::fprintf(stderr, "servebench sim: %s\n", st.message().c_str());
    return kExitInvalidInput;
  }
  if (flags.fidelity) return RunFidelity(flags);
  if (!flags.predict_concurrency.empty()) {
    Status valid = sim::Validate(s);
    auto config = valid.ok() ? sim::Resolve(s) : StatusOr<sim::ResolvedConfig>(valid);
    if (!config.ok()) {
      std::fprintf(stderr, "servebench sim: %s\n", config.status().message().c_str());
      return kExitInvalidInput;
    }
    std::vector<sim::PredictedPoint> points;
    for (int c : flags.predict_concurrency) {
      flags.load.concurrency = c;
      auto p = sim::PredictClosedLoop(*config->perf, config->scheduler, config->engine, flags.load);
      if (!p.ok()) {
        std::fprintf(stderr, "servebench sim: %s\n", p.status().message().c_str());
        return kExitInvalidInput;
      }
      points.push_back(*p);
    }
    std::printf("%s", sim::PredictTable(points).c_str());
    return kExitOk;
  }
  auto server =
      s.role.role == sim::SimRole::kRouter ? sim::CreateSimRouter(s) : sim::SimServer::Create(s);
  if (!server.ok()) {
    if (server.status().code() == StatusCode::kCancelled) {  // --fault-exit-at-startup
      std::fprintf(stderr, "%s\n", server.status().message().c_str());
      std::fflush(stderr);
      return s.faults.exit_code;
    }
    std::fprintf(stderr, "servebench sim: %s\n", server.status().message().c_str());
    return server.status().code() == StatusCode::kInvalidArgument ? kExitInvalidInput
                                                                  : kExitRunFailed;
  }
  g_server = server->get();
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  Status st = (*server)->Run();
  g_server = nullptr;
  if (!st.ok()) {
    std::fprintf(stderr, "servebench sim: %s\n", st.message().c_str());
    return kExitRunFailed;
  }
  std::printf("servebench sim: shut down\n");
  return kExitOk;
}

const CommandRegistration kRegister{{"sim", "the simulated OpenAI-compatible engine", RunSim}};

}  // namespace
}  // namespace servebench::cli
