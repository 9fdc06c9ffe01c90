// servebench search: against a running server, the highest concurrency (or request
// rate) whose load run meets every --slo limit. Takes bench's flags for the load of
// each probe (bench_flags.h); the strategy is search/slo_search.h.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include "cli/bench_flags.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "search/slo_search.h"

namespace servebench::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnSearchSignal(int) { g_interrupted.store(true); }

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "servebench search: %s\n", message.c_str());
  return code;
}

int RunSearchCommand(int argc, char** argv) {
  CLI::App app{
      "servebench search: the highest concurrency or request rate at which a running server "
      "meets SLO limits.\nEach probe is one `servebench bench` run with the flags below; the "
      "search brackets by doubling, then bisects (docs/search.md)."};
  app.option_defaults()->always_capture_default();
  BenchFlags flags;
  search::SearchSettings ss;
  std::vector<std::string> slos;
  std::string vary = "concurrency";
  app.add_option("--slo", slos, "a limit <stat><=<ms>, repeatable: e.g. ttft_p99_ms<=500")
      ->required();
  app.add_option("--vary", vary, "concurrency (closed loop) or rate (open loop)");
  auto* min_flag = app.add_option("--search-min", ss.min, "lowest value probed");
  auto* max_flag = app.add_option("--search-max", ss.max, "highest value probed");
  app.add_option("--search-step", ss.concurrency_step,
                 "concurrency: stop when pass and fail are this close");
  app.add_option("--search-resolution", ss.rate_resolution,
                 "rate: stop when pass and fail are within this fraction");
  app.add_option("--search-repeats", ss.repeats,
                 "probes at each value beside the boundary; the majority decides");
  app.add_option("--search-max-probes", ss.max_probes, "stop after this many probes");
  app.add_option("--search-prompts-per-concurrency", ss.prompts_per_concurrency,
                 "concurrency: prompts per probe = this x concurrency (0 = --num-prompts)");
  AddBenchFlags(app, &flags);
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (vary == "rate") {
    ss.vary = search::Vary::kRate;
    if (min_flag->count() == 0) ss.min = 1;
    if (max_flag->count() == 0) ss.max = 1000;
  } else if (vary != "concurrency") {
    return Fail(kExitInvalidInput, "--vary '" + vary + "': concurrency or rate");
  }
  for (const std::string& text : slos) {
    auto limit = search::ParseSloLimit(text);
    if (!limit.ok()) return Fail(kExitInvalidInput, limit.status().message());
    ss.slos.push_back(*limit);
  }
  if (flags.result_format != "vllm") {
    return Fail(kExitInvalidInput,
                "--result-format: search writes its own JSON (docs/search.md), not a bench result");
  }
  if (flags.settings.save_detailed) {
    return Fail(kExitInvalidInput,
                "--save-detailed: not for search; --save-result keeps every "
                "probe's result");
  }
  if (ss.vary == search::Vary::kRate) {
    if (flags.request_rate != "inf") {
      return Fail(kExitUsage, "--request-rate with --vary rate: the search sets each probe's rate");
    }
    flags.request_rate = "1";  // a placeholder the probes replace; checked as a rate
  }
  if (Status st = FinishBenchFlags(&flags); !st.ok()) return Fail(kExitInvalidInput, st.message());
  ss.bench = flags.settings;
  ss.size_prompts_by_duration =
      flags.duration_flag->count() > 0 && flags.num_prompts_flag->count() == 0;
  if (Status st = search::Validate(ss); !st.ok()) return Fail(kExitInvalidInput, st.message());

  std::signal(SIGINT, OnSearchSignal);
  std::signal(SIGTERM, OnSearchSignal);
  search::SearchResult r =
      search::RunSloSearch(ss, search::BenchProbeRunner(ss, &g_interrupted), &g_interrupted);
  std::fputs(search::SearchReport(ss, r).c_str(), stdout);
  std::fflush(stdout);
  if (flags.save_result || !flags.result_filename.empty()) {
    std::string name = flags.result_filename.empty()
                           ? fmt::format("search-{}-{}.json", vary,
                                         ss.bench.label.empty() ? ss.bench.backend : ss.bench.label)
                           : flags.result_filename;
    std::filesystem::path path = flags.result_dir.empty()
                                     ? std::filesystem::path(name)
                                     : std::filesystem::path(flags.result_dir) / name;
    Status w = WriteFileAtomically(path.string(),
                                   boost::json::serialize(search::SearchResultJson(ss, r)) + "\n");
    if (!w.ok()) return Fail(kExitRunFailed, w.ToString());
    std::fprintf(stderr, "servebench search: result written to %s\n", path.c_str());
  }
  if (r.interrupted) return kExitInterrupted;
  if (!r.stopped.ok()) return Fail(ExitCodeFor(r.stopped), r.stopped.message());
  return kExitOk;
}

const CommandRegistration kRegister{
    {"search", "the highest concurrency or rate meeting SLO limits (bench flags + --slo)",
     RunSearchCommand}};

}  // namespace
}  // namespace servebench::cli
