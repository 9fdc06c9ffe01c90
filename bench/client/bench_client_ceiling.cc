// bench_client_ceiling: the client's own ceiling (issue 19, item 6), in one run
// against one `servebench sim --time-scale 0` on loopback:
//   a. maximum sustained requests/s with 1-token outputs, 1 worker and N workers
//   b. maximum SSE events/s with 1024-token outputs (one token per event), 1 and N
//   c. client CPU per SSE event beside the raw floor (raw_floor.h: epoll + read that
//      only sends the same requests and counts events) over the same connections, and
//      the ratio servebench / floor (target <= 2x).
// Every load is closed-loop: a slot is refilled the moment its request ends, so the
// throughput of a saturated closed loop is the most the client (or the sim) can
// sustain, found in one run per figure; an open loop would need a search over rates,
// each probe judged by whether the schedule kept up. The floor runs the same loads,
// so where servebench and the floor reach the same rate the sim, not the client, set
// it; the client's CPU cores used (CPU s / wall s) say the same from the other side.
// `--quick` shrinks every load 10x; `--workers N` sets N (default 2); `--repeats R`
// repeats figure c (default 3; the median is reported, the range beside it).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "client/client.h"
#include "client/dataset.h"
#include "client/request_builder.h"
#include "net/url.h"
#include "raw_floor.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

using bench::FloorResult;
using sim::testing::SimProcess;

const char* kModel = "meta-llama/Llama-3.1-8B-Instruct";

// One closed-loop load: what both servebench and the floor run.
struct Load {
  int64_t prompts = 0;
  int64_t concurrency = 0;
  int64_t input_len = 16;
  int64_t output_len = 1;
};

struct Figure {
  bool ok = false;
  int64_t requests = 0, events = 0, reads = 0;
  double wall_s = 0, cpu_s = 0;
  std::string note;  // why !ok, or what went wrong in an ok run
  double requests_per_s() const { return wall_s > 0 ? static_cast<double>(requests) / wall_s : 0; }
  double events_per_s() const { return wall_s > 0 ? static_cast<double>(events) / wall_s : 0; }
  double us_per_event() const { return events > 0 ? cpu_s * 1e6 / static_cast<double>(events) : 0; }
  double cores() const { return wall_s > 0 ? cpu_s / wall_s : 0; }
  double us_per_request() const {
    return requests > 0 ? cpu_s * 1e6 / static_cast<double>(requests) : 0;
  }
  double events_per_read() const {
    return reads > 0 ? static_cast<double>(events) / static_cast<double>(reads) : 0;
  }
};

BenchSettings SettingsFor(const SimProcess& sim, const Load& load, int workers) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = kModel;
  s.ignore_eos = true;
  s.request_timeout_s = 600;
  s.scrape_metrics = false;
  s.num_prompts = load.prompts;
  s.max_concurrency = load.concurrency;
  s.random_input_len = load.input_len;
  s.random_output_len = load.output_len;
  s.num_workers = workers;
  return s;
}

Figure Servebench(const SimProcess& sim, const Load& load, int workers) {
  Figure f;
  auto r = RunBench(SettingsFor(sim, load, workers));
  if (!r.ok()) {
    f.note = r.status().ToString();
    return f;
  }
  f.requests = r->summary.completed;
  f.events = r->self.events;
  f.cpu_s = r->self.cpu_s;
  const boost::json::object& client =
      r->result.at("servebench").as_object().at("client").as_object();
  f.wall_s = client.at("measured_phase_wall_s").as_double();
  f.reads = client.at("reads").to_number<int64_t>();
  f.ok = r->summary.failed == 0 && f.requests == load.prompts;
  if (!f.ok) {
    f.note = fmt::format("{} of {} requests failed ({})", r->summary.failed, load.prompts,
                         r->summary.sample_errors.empty() ? "" : r->summary.sample_errors[0]);
  }
  return f;
}

// The floor sends exactly the bytes servebench sends for the same load: the same
// prompts (the same seed) through the same request builder.
Figure Floor(const SimProcess& sim, const Load& load) {
  Figure f;
  BenchSettings s = SettingsFor(sim, load, 1);
  auto url = net::ParseUrl(s.base_url);
  auto prompts = MakePrompts(s, /*chat=*/false, {});
  if (!url.ok() || !prompts.ok()) {
    f.note = !url.ok() ? url.status().ToString() : prompts.status().ToString();
    return f;
  }
  auto tmpl = MakeRequestTemplate(s, *url, "");
  if (!tmpl.ok()) {
    f.note = tmpl.status().ToString();
    return f;
  }
  bench::FloorRun run;
  run.port = sim.port();
  run.connections = load.concurrency;
  for (const Prompt& p : prompts->measured) run.requests.push_back(BuildRequest(*tmpl, p, true));
  FloorResult r = bench::RunRawFloor(run);
  f.requests = r.requests_done;
  f.events = r.events;
  f.reads = r.reads;
  f.wall_s = r.wall_s;
  f.cpu_s = r.cpu_s;
  f.ok = r.error.empty();
  f.note = r.error;
  return f;
}

void Row(const std::string& name, const std::string& value, const std::string& target = "",
         const char* verdict = "") {
  std::printf("%-50s %-58s %-10s %s\n", name.c_str(), value.c_str(), target.c_str(), verdict);
  std::fflush(stdout);
}

void Failed(const std::string& name, const Figure& f) { Row(name, "FAILED: " + f.note); }

// The rate reached, the client's CPU cores used to reach it, and its CPU per unit.
std::string Rate(const Figure& f, bool events) {
  if (events) {
    return fmt::format("{:.0f}/s ({:.2f} cores, {:.3f} us/event, {:.0f} events/read)",
                       f.events_per_s(), f.cores(), f.us_per_event(), f.events_per_read());
  }
  return fmt::format("{:.0f}/s ({:.2f} cores, {:.1f} us CPU/request)", f.requests_per_s(),
                     f.cores(), f.us_per_request());
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int Main(int argc, char** argv) {
  int scale = 1, workers = 2, repeats = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") scale = 10;
    if (a == "--workers" && i + 1 < argc) workers = std::max(1, std::atoi(argv[++i]));
    if (a == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
  }
  // max-num-seqs above every load's concurrency: the sim never queues a request.
  SimProcess sim({"--time-scale", "0", "--max-num-seqs", "1024"}, /*wait_ready=*/true, 60);
  if (!sim.ready()) {
    std::printf("could not start servebench sim: %s\n", sim.output().c_str());
    return 1;
  }
  std::printf("%-50s %-58s %-10s\n", "figure (closed loop, servebench sim --time-scale 0)", "value",
              "target");

  // a. Requests/s with 1-token outputs: 256 streams, each request a fresh stream of two
  // events (the token, the usage chunk), so the per-request costs dominate.
  const Load requests{20000 / scale, 256, 16, 1};
  for (int w : {1, workers}) {
    Figure f = Servebench(sim, requests, w);
    std::string name =
        fmt::format("a. requests/s, 1-token outputs, {} worker{}", w, w > 1 ? "s" : "");
    f.ok ? Row(name, Rate(f, false)) : Failed(name, f);
    if (w == workers) break;
  }
  if (Figure f = Floor(sim, requests); f.ok) {
    Row("   raw floor, same load (the sim's ceiling)", Rate(f, false));
  } else {
    Failed("   raw floor, same load", f);
  }

  // b. Events/s with long outputs: 64 streams of 1024 tokens, one token per event.
  const Load events{512 / scale, 64, 64, 1024};
  for (int w : {1, workers}) {
    Figure f = Servebench(sim, events, w);
    std::string name =
        fmt::format("b. SSE events/s, 1024-token outputs, {} worker{}", w, w > 1 ? "s" : "");
    f.ok ? Row(name, Rate(f, true)) : Failed(name, f);
    if (w == workers) break;
  }

  // c. CPU per event beside the floor: 1 worker, the same 64 connections and
  // requests, alternated so both see the same machine.
  std::vector<double> ours, floor;
  for (int k = 0; k < repeats; ++k) {
    Figure s = Servebench(sim, events, 1);
    Figure f = Floor(sim, events);
    if (!s.ok || !f.ok) {
      s.ok ? Failed("c. raw floor", f) : Failed("c. servebench", s);
      continue;
    }
    ours.push_back(s.us_per_event());
    floor.push_back(f.us_per_event());
    Row(fmt::format("   run {}: servebench / floor", k + 1),
        fmt::format("{:.3f} / {:.3f} us ({:.0f} / {:.0f} events/read)", s.us_per_event(),
                    f.us_per_event(), s.events_per_read(), f.events_per_read()));
  }
  if (!ours.empty()) {
    auto range = [](const std::vector<double>& v) {
      return fmt::format("{:.3f} us (range {:.3f}-{:.3f}, n={})", Median(v),
                         *std::min_element(v.begin(), v.end()),
                         *std::max_element(v.begin(), v.end()), v.size());
    };
    Row("c. client CPU per SSE event, servebench (1 worker)", range(ours));
    Row("   raw floor (epoll + read, counts events)", range(floor));
    double ratio = Median(floor) > 0 ? Median(ours) / Median(floor) : 0;
    Row("   ratio servebench / floor", fmt::format("{:.2f}x", ratio), "<= 2x",
        ratio > 0 && ratio <= 2.0 ? "ok" : "MISSED");
  }
  std::printf(
      "peers' published figures: AIPerf ~5k QPS soft / 20k QPS hard per machine; "
      "inference-perf \"10k+ QPS\"; InferenceX's Python loop 5.0 us CPU per event\n");
  return 0;
}

}  // namespace
}  // namespace servebench::client

int main(int argc, char** argv) { return servebench::client::Main(argc, argv); }
