// servebench bench: one load run against a running server. Takes the common
// `vllm bench serve` flags with the same meanings, so a script switches by changing
// one word; servebench's own flags are listed after them in --help.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include "cli/bench_flags.h"
#include "cli/command.h"
#include "cli/command_line.h"
#include "client/client.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "common/log.h"
#include "telemetry/power_report.h"
#include "telemetry/samples_csv.h"

namespace servebench::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int) { g_interrupted.store(true); }

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "servebench bench: %s\n", message.c_str());
  return code;
}

int RunBenchCommand(int argc, char** argv) {
  CLI::App app{
      "servebench bench: one load run against a running OpenAI-compatible server.\n"
      "Flags keep `vllm bench serve`'s names and meanings."};
  app.option_defaults()->always_capture_default();
  BenchFlags flags;
  AddBenchFlags(app, &flags);
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;
  if (Status st = FinishBenchFlags(&flags); !st.ok()) return Fail(kExitInvalidInput, st.message());
  const client::BenchSettings& s = flags.settings;
  const std::string& result_dir = flags.result_dir;
  const std::string& result_filename = flags.result_filename;
  const std::string& requests_jsonl = flags.requests_jsonl;
  bool save_result = flags.save_result;

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  StatusOr<client::BenchResult> r = client::RunBench(s, &g_interrupted);
  if (!r.ok()) return Fail(ExitCodeFor(r.status()), r.status().message());
  std::fputs(metrics::FormatSummaryTable(r->summary, r->header).c_str(), stdout);
  std::fputs((telemetry::FormatPowerLine(r->power) + "\n").c_str(), stdout);
  std::fflush(stdout);
  if (r->summary.failed > 0) {
    std::fprintf(stderr, "servebench bench: %s\n", metrics::FailureSummary(r->summary).c_str());
  }
  if (r->self.reconnects > 0) {
    std::fprintf(stderr,
                 "servebench bench: the server closed %lld kept-alive connection(s) without "
                 "`Connection: close` as they were reused; those requests were re-sent on new "
                 "connections (servebench.client.reconnects)\n",
                 static_cast<long long>(r->self.reconnects));
  }
  if (save_result || s.save_detailed || !result_filename.empty()) {
    std::string name =
        result_filename.empty() ? metrics::DefaultResultFilename(r->header) : result_filename;
    std::filesystem::path path =
        result_dir.empty() ? std::filesystem::path(name) : std::filesystem::path(result_dir) / name;
    boost::json::object out =
        flags.result_format == "inferencex"
            ? metrics::BuildInferenceXResultJson(r->summary, r->header, r->records)
            : r->result;
    if (flags.result_format == "inferencex") telemetry::AddInferenceXPowerKeys(r->power, &out);
    Status w = WriteFileAtomically(path.string(), boost::json::serialize(out) + "\n");
    if (!w.ok()) return Fail(kExitRunFailed, w.ToString());
    std::fprintf(stderr, "servebench bench: result written to %s\n", path.c_str());
    if (r->power_samples) {
      // The raw samples, in InferenceX's gpu_metrics.csv shape, beside the result.
      std::filesystem::path csv = path;
      csv.replace_extension(".gpu_metrics.csv");
      Status c =
          WriteFileAtomically(csv.string(), telemetry::SamplesToCsv(*r->power_samples, r->anchor));
      if (!c.ok()) return Fail(kExitRunFailed, c.ToString());
    }
    if (s.save_detailed && requests_jsonl.empty()) {
      std::filesystem::path jsonl = path;
      jsonl.replace_extension(".requests.jsonl");
      std::string lines;
      for (const metrics::RequestRecord& rec : r->records) {
        lines += boost::json::serialize(metrics::RequestRecordJson(rec)) + "\n";
      }
      Status j = WriteFileAtomically(jsonl.string(), lines);
      if (!j.ok()) return Fail(kExitRunFailed, j.ToString());
    }
  }
  if (r->interrupted) std::fprintf(stderr, "servebench bench: interrupted; partial result kept\n");
  return r->exit_code();
}

const CommandRegistration kRegister{
    {"bench", "one load run against a running server (vllm bench serve flags)", RunBenchCommand}};

}  // namespace
}  // namespace servebench::cli
