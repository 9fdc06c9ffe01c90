// bench_client: measures servebench's load generator against `servebench sim` on
// loopback and prints one row per figure (issue 4, "Done when"):
//   1. client CPU time per SSE event at --time-scale 0 (target <= 2 us)
//   2. 10,000 concurrent streams held (target < 1 GiB client RSS)
//   3. TTFT measurement error vs the sim's send times at 1,000 streams (p99 < 100 us),
//      with kernel receive stamps (the default) and with read-return stamps
//   4. 100,000-token prompts (no collapse)
//   5. the same CPU and TTFT-error figures for vLLM's Python request loop, when
//      VLLM_SRC names a vLLM checkout and python3-aiohttp is installed.
// Each figure runs in a fresh sim process. `bench_client --quick` shrinks every
// load 10x (for a smoke run).
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "client/client.h"
#include "common/testing/shell.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

using servebench::testing::ProcessResult;
using servebench::testing::RunProcess;
using sim::testing::SimProcess;

const char* kModel = "meta-llama/Llama-3.1-8B-Instruct";
int g_scale = 1;  // --quick divides loads by 10

// The servebench binary that runs the sim: $SERVEBENCH_SIM_BIN, else this build's.
std::string SimBinary() {
  const char* env = std::getenv("SERVEBENCH_SIM_BIN");
  return env != nullptr && *env != '\0' ? env : SERVEBENCH_BIN;
}

std::unique_ptr<SimProcess> Sim(std::vector<std::string> args) {
  auto sim = std::make_unique<SimProcess>(args, /*wait_ready=*/true, 60, SimBinary());
  if (!sim->ready()) {
    std::printf("  could not start servebench sim: %s\n", sim->output().c_str());
    return nullptr;
  }
  return sim;
}

BenchSettings Base(const SimProcess& sim) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = kModel;
  s.ignore_eos = true;
  s.request_timeout_s = 600;
  s.scrape_metrics = false;
  return s;
}

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return *metrics::PercentileOfSorted(v, p);
}

void Row(const std::string& name, const std::string& value, const std::string& target, bool ok) {
  std::printf("%-44s %-34s %-16s %s\n", name.c_str(), value.c_str(), target.c_str(),
              ok ? "ok" : "MISSED");
  std::fflush(stdout);
}

// TTFT error samples (us): client first-token time minus the server's send time.
std::vector<double> TtftErrorsUs(const BenchResult& r) {
  std::vector<double> out;
  for (const metrics::RequestRecord& rec : r.records) {
    if (rec.warmup || !rec.ok() || rec.server_first_token_send_ns < 0) continue;
    out.push_back(static_cast<double>(rec.t_first_token_ns - rec.server_first_token_send_ns) / 1e3);
  }
  return out;
}

struct CpuFigure {
  double us_per_event = 0;
  int64_t events = 0;
  double events_per_s = 0;
};

CpuFigure CpuPerEventOnce(int64_t prompts, int64_t concurrency, int64_t output_len, bool* clean) {
  CpuFigure f;
  *clean = false;
  auto sim = Sim({"--time-scale", "0", "--max-num-seqs", "1024"});
  if (!sim) return f;
  BenchSettings s = Base(*sim);
  s.num_prompts = prompts;
  s.max_concurrency = concurrency;
  s.random_input_len = 64;
  s.random_output_len = output_len;
  s.num_workers = 1;
  auto r = RunBench(s);
  if (!r.ok()) {
    std::printf("  run failed: %s\n", r.status().ToString().c_str());
    return f;
  }
  f.us_per_event = r->self.cpu_us_per_event;
  f.events = r->self.events;
  double wall = r->result.at("servebench")
                    .as_object()
                    .at("client")
                    .as_object()
                    .at("measured_phase_wall_s")
                    .as_double();
  f.events_per_s = wall > 0 ? static_cast<double>(f.events) / wall : 0;
  *clean = r->summary.failed == 0;
  if (!*clean) {
    std::printf("  note: %lld requests failed (%s)\n", static_cast<long long>(r->summary.failed),
                r->summary.sample_errors.empty() ? "" : r->summary.sample_errors[0].c_str());
  }
  return f;
}

// A run with failed requests (the sim process died, say) measures a different
// load: retry, at most three times, and say so when no run was clean.
CpuFigure CpuPerEvent(int64_t prompts, int64_t concurrency, int64_t output_len) {
  CpuFigure f;
  for (int attempt = 0; attempt < 3; ++attempt) {
    bool clean = false;
    f = CpuPerEventOnce(prompts, concurrency, output_len, &clean);
    if (clean) return f;
  }
  std::printf(
      "  note: no clean run in three attempts; the figure below is from a run with failures\n");
  return f;
}

// Runs the Python row; returns false (and says why) when it cannot.
bool PythonRow(const CpuFigure& native_cpu, double native_ttft_p99_us,
               double native_read_ttft_p99_us, int64_t streams) {
  const char* vllm = std::getenv("VLLM_SRC");
  if (vllm == nullptr || std::string(vllm).empty()) {
    std::printf(
        "python client row skipped: set VLLM_SRC to a vLLM checkout (git clone --depth 1 "
        "https://github.com/vllm-project/vllm) and install Debian's python3-aiohttp "
        "(apt-get install python3-aiohttp); the row runs vllm/benchmarks/lib/"
        "endpoint_request_func.py's request loop against the same sim.\n");
    return false;
  }
  std::string script = std::string(SERVEBENCH_SOURCE_DIR) + "/bench/client/vllm_client_row.py";
  auto run_py = [&](const std::vector<std::string>& sim_args, int64_t prompts, int64_t conc,
                    int64_t out_len) -> std::optional<boost::json::object> {
    auto sim = Sim(sim_args);
    if (!sim) return std::nullopt;
    std::vector<std::string> argv = {"/usr/bin/python3", script,
                                     "--vllm-src",       vllm,
                                     "--base-url",       sim->base_url(),
                                     "--model",          kModel,
                                     "--num-prompts",    std::to_string(prompts),
                                     "--concurrency",    std::to_string(conc),
                                     "--input-len",      "64",
                                     "--output-len",     std::to_string(out_len)};
    ProcessResult p = RunProcess(argv, 900);
    if (p.exit_code != 0) {
      std::printf("  python row failed (exit %d): %s\n", p.exit_code, p.err.substr(0, 800).c_str());
      return std::nullopt;
    }
    boost::json::error_code ec;
    boost::json::value v = boost::json::parse(p.out, ec);
    if (ec || !v.is_object()) {
      std::printf("  python row printed no JSON: %s\n", p.out.substr(0, 400).c_str());
      return std::nullopt;
    }
    return v.as_object();
  };
  auto cpu = run_py({"--time-scale", "0", "--max-num-seqs", "1024"}, 256 / g_scale, 64, 1024);
  if (cpu) {
    double us = cpu->at("cpu_us_per_event").to_number<double>();
    Row("python (vLLM request loop) CPU per event",
        fmt::format("{:.2f} us ({} events)", us, cpu->at("events").to_number<int64_t>()), "", true);
    Row("  ratio python / servebench",
        fmt::format("{:.1f}x", native_cpu.us_per_event > 0 ? us / native_cpu.us_per_event : 0), "",
        true);
  }
  auto ttft = run_py({"--time-scale", "1", "--send-time-field", "--max-num-seqs", "1024"}, streams,
                     streams, 16);
  if (ttft) {
    double p50 = ttft->at("ttft_error_p50_us").to_number<double>();
    double p99 = ttft->at("ttft_error_p99_us").to_number<double>();
    int64_t n = ttft->at("ttft_error_samples").to_number<int64_t>();
    Row(fmt::format("python TTFT error at {} streams", streams),
        fmt::format("p50 {:.0f} us, p99 {:.0f} us (n={})", p50, p99, n), "", n > 0);
    Row("  p99 ratio python / servebench (kernel stamps)",
        fmt::format("{:.0f}x", native_ttft_p99_us > 0 ? p99 / native_ttft_p99_us : 0), "", true);
    Row("  p99 ratio python / servebench (read stamps)",
        fmt::format("{:.1f}x", native_read_ttft_p99_us > 0 ? p99 / native_read_ttft_p99_us : 0), "",
        true);
  }
  return true;
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--quick") g_scale = 10;
  }
  std::printf("%-44s %-34s %-16s %s\n", "figure", "value", "target", "");

  // 1. CPU per SSE event: one worker thread, 64 streams, one token per event.
  CpuFigure cpu = CpuPerEvent(512 / g_scale, 64, 1024);
  Row("client CPU per SSE event (1 worker, 64 streams)",
      fmt::format("{:.2f} us ({} events, {:.0f}/s)", cpu.us_per_event, cpu.events,
                  cpu.events_per_s),
      "<= 2 us", cpu.us_per_event > 0 && cpu.us_per_event <= 2.0);

  // 2. 10,000 concurrent streams held.
  {
    int64_t n = 10000 / g_scale;
    auto sim = Sim(
        {"--time-scale", "1", "--max-num-seqs", "16384", "--max-num-batched-tokens", "1000000"});
    if (sim) {
      BenchSettings s = Base(*sim);
      s.num_prompts = n;
      s.max_concurrency = n;
      s.random_input_len = 16;
      s.random_output_len = 64;
      auto r = RunBench(s);
      if (r.ok()) {
        rusage u{};
        getrusage(RUSAGE_SELF, &u);
        double rss_mib = static_cast<double>(u.ru_maxrss) / 1024.0;
        Row(fmt::format("concurrent streams held (of {})", n),
            fmt::format("{} peak, {} ok, {} failed", r->summary.max_concurrent_requests,
                        r->summary.completed, r->summary.failed),
            fmt::format("{}", n), r->summary.max_concurrent_requests >= n * 99 / 100);
        Row("  client peak RSS (whole bench process)", fmt::format("{:.0f} MiB", rss_mib),
            "< 1024 MiB", rss_mib < 1024);
      } else {
        std::printf("  run failed: %s\n", r.status().ToString().c_str());
      }
    }
  }

  // 3. TTFT measurement error against the sim's send times at 1,000 streams: the
  // sim stamps each chunk as its bytes go to send(); the client stamps events with
  // the kernel's receive time (the default) and, in a second run, with the time its
  // read returned, which adds the client's own scheduling delay.
  double native_p99 = 0, native_read_p99 = 0;
  int64_t streams = 1000 / g_scale;
  for (bool kernel : {true, false}) {
    auto sim = Sim({"--time-scale", "1", "--send-time-field", "--max-num-seqs", "1024"});
    if (!sim) continue;
    BenchSettings s = Base(*sim);
    s.num_prompts = streams;
    s.max_concurrency = streams;
    s.random_input_len = 64;
    s.random_output_len = 16;
    s.kernel_rx_timestamps = kernel;
    auto r = RunBench(s);
    if (!r.ok()) {
      std::printf("  run failed: %s\n", r.status().ToString().c_str());
      continue;
    }
    std::vector<double> e = TtftErrorsUs(*r);
    double p99 = Pct(e, 99);
    (kernel ? native_p99 : native_read_p99) = p99;
    Row(fmt::format("TTFT error at {} streams, {} stamps", streams, kernel ? "kernel" : "read"),
        fmt::format("p50 {:.1f} us, p99 {:.1f} us (n={})", Pct(e, 50), p99, e.size()),
        kernel ? "p99 < 100 us" : "", !e.empty() && (!kernel || p99 < 100));
    const boost::json::value& lag =
        r->result.at("servebench").as_object().at("client").as_object().at("receive_lag_us");
    if (lag.is_object()) {
      Row("  client receive lag (read - kernel receive)",
          fmt::format("p50 {:.1f} us, p99 {:.1f} us, max {:.0f} us",
                      lag.at("p50").to_number<double>(), lag.at("p99").to_number<double>(),
                      lag.at("max").to_number<double>()),
          "", true);
    }
  }

  // 4. 100,000-token prompts (retried like figure 1 when the sim process dies).
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto sim = Sim({"--time-scale", "0"});
    if (sim) {
      BenchSettings s = Base(*sim);
      s.num_prompts = 8;
      s.max_concurrency = 4;
      s.random_input_len = 100000;
      s.random_output_len = 16;
      auto r = RunBench(s);
      if (r.ok()) {
        Row("100,000-token prompts (8, concurrency 4)",
            fmt::format("{} ok, {} failed, P99 issue delay {:.2f} ms", r->summary.completed,
                        r->summary.failed, r->summary.issue_delay.At(99).value_or(-1)),
            "all ok", r->summary.completed == 8);
        if (r->summary.completed == 8) break;
      } else {
        std::printf("  run failed: %s\n", r.status().ToString().c_str());
      }
    }
  }

  // 5. Python client row.
  PythonRow(cpu, native_p99, native_read_p99, streams);
  return 0;
}

}  // namespace
}  // namespace servebench::client

int main(int argc, char** argv) { return servebench::client::Main(argc, argv); }
