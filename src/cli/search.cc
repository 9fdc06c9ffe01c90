// servebench search: against a running server, the highest concurrency (or request
// rate) whose load run meets every --slo limit. Takes bench's flags for the load of
// each probe (bench_flags.h); the strategy is search/slo_search.h. Every probe and the
// answer become Records (search/search_records.h), written beside the result and
// stored with --db.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include "cli/bench_flags.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/flag_checks.h"
#include "cli/run_command.h"
#include "common/atomic_file.h"
#include "common/calendar_date.h"
#include "common/exit_codes.h"
#include "common/safe_id.h"
#include "common/time_format.h"
#include "run/record_sink.h"
#include "search/search_records.h"
#include "search/slo_search.h"
#include "store/store.h"

namespace servebench::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnSearchSignal(int) { g_interrupted.store(true); }

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "servebench search: %s\n", message.c_str());
  return code;
}

std::string HostName() {
  char host[128] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

// Writes every probe's record and the answer's into <folder>/records/, and into the
// store when `db` names one. Fails on the first record that could not be kept.
Status KeepRecords(const search::SearchRecords& records, const std::string& folder,
                   const std::string& db) {
  std::unique_ptr<store::Store> results;
  if (!db.empty()) {
    SB_ASSIGN_OR_RETURN(results, store::Open(db));
  }
  run::StoreRecordSink sink(folder, std::move(results));
  for (const record::Record& r : records.probes) SB_RETURN_IF_ERROR(sink.Put(r));
  return sink.Put(records.answer);
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
  // What the records say about the server (search_records.h) and where they go.
  search::SearchIdentity identity;
  std::string db;
  app.add_option("--recipe", identity.recipe, "the name of the search's series in its records");
  app.add_option("--engine", identity.engine,
                 "what serves --base-url (vllm, sglang, trtllm, llamacpp, sim, ...), recorded");
  app.add_option("--hardware", identity.hardware, "GPU SKU label (h200, mi355x, ...), recorded");
  app.add_option("--precision", identity.precision, "fp8, bf16, ..., recorded");
  AddBuildFlags(&app, &identity.build);
  app.add_option("--run-id", identity.run_id, "identifier of this search (default: time-host-pid)");
  AddDbFlag(&app, &db, "also store every record in this SQLite file or postgresql:// URL");
  AddBenchFlags(app, &flags);
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (identity.recipe.empty() || identity.engine.empty()) {
    return Fail(kExitInvalidInput, "--recipe and --engine name the records' series: not empty");
  }
  for (Status st :
       {identity.build.date.empty() ? Status::Ok()
                                    : CheckCalendarDate("--build-date", identity.build.date),
        identity.run_id.empty() ? Status::Ok() : CheckSafeId("--run-id", identity.run_id),
        CheckStoreToWrite(db)}) {
    if (!st.ok()) return Fail(kExitInvalidInput, st.message());
  }
  if (vary == "rate") {
    ss.vary = search::Vary::kRate;
    if (min_flag->count() == 0) ss.min = 1;
    if (max_flag->count() == 0) ss.max = search::kDefaultMaxRate;
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
  bool save = flags.save_result || !flags.result_filename.empty();
  std::string name = flags.result_filename.empty()
                         ? fmt::format("search-{}-{}.json", vary,
                                       ss.bench.label.empty() ? ss.bench.backend : ss.bench.label)
                         : flags.result_filename;
  std::filesystem::path path = flags.result_dir.empty()
                                   ? std::filesystem::path(name)
                                   : std::filesystem::path(flags.result_dir) / name;
  if (save) {
    Status w = WriteFileAtomically(path.string(),
                                   boost::json::serialize(search::SearchResultJson(ss, r)) + "\n");
    if (!w.ok()) return Fail(kExitRunFailed, w.ToString());
    std::fprintf(stderr, "servebench search: result written to %s\n", path.c_str());
  }
  if (save || !db.empty()) {
    // Beside the result, so `servebench ingest <its folder>` finds them.
    std::string folder = path.parent_path().empty() ? "." : path.parent_path().string();
    if (identity.run_id.empty()) identity.run_id = DefaultRunId();
    if (identity.build.date.empty()) identity.build.date = FormatNow("%Y-%m-%d");
    identity.host = HostName();
    search::SearchRecords records = search::BuildSearchRecords(ss, identity, r);
    Status kept = KeepRecords(records, folder, db);
    if (!kept.ok()) return Fail(kExitRunFailed, kept.ToString());
    std::fprintf(stderr, "servebench search: %zu record(s) written to %s/records%s%s\n",
                 records.probes.size() + 1, folder.c_str(), db.empty() ? "" : " and stored in ",
                 db.c_str());
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
