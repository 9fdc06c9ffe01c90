// client/: servebench's load generator. RunBench runs one load run (warm-ups, the
// measured phase, Prometheus scrapes) against a running OpenAI-compatible server
// and returns the RunSummary and the vllm-bench-compatible result JSON.
//
// Threads: RunBench blocks its caller. It starts `num_workers` event-loop threads,
// each owning its connections, its slice of the schedule and its records; records
// are merged after the run. `cancel` may be set from any thread (a signal handler
// included): in-flight requests are closed, marked cancelled, and the partial
// result is returned with `interrupted` set.
#pragma once

#include <atomic>
#include <boost/json.hpp>
#include <vector>

#include "client/client_settings.h"
#include "common/status.h"
#include "common/time_anchor.h"
#include "metrics/metrics.h"
#include "metrics/scrape_series.h"
#include "telemetry/power_report.h"

namespace servebench::client {

// The client's measurement of itself (design.md principle 4).
struct ClientSelfStats {
  double cpu_s = 0;    // user + system CPU of the process in the measured phase
  int64_t events = 0;  // SSE events received in the measured phase
  double cpu_us_per_event = 0;
  int workers = 0;
  int64_t connections_opened = 0;
  // Requests re-sent on a new connection because the server had closed the pooled
  // one without `Connection: close`; pooled connections found closed before reuse.
  int64_t reconnects = 0;
  int64_t stale_connections = 0;
};

struct BenchResult {
  metrics::RunSummary summary;
  boost::json::object result;                   // the vllm-bench-compatible JSON
  metrics::ResultHeader header;                 // what the JSON's header says (for the table)
  std::vector<metrics::RequestRecord> records;  // warm-ups first, then measured
  ClientSelfStats self;
  // GPU power over the measured window (also in `result` as servebench.power) and
  // the raw samples it was computed from (the CLI and run/ write them as the
  // InferenceX-shaped gpu_metrics CSV); samples are absent without a source.
  telemetry::PowerReport power;
  std::optional<telemetry::SampleSet> power_samples;
  // The engine's /metrics every --metrics-interval-s over the measured phase (empty
  // without periodic scrapes); their KV-usage statistics are servebench.kv_usage.
  std::vector<metrics::TimedScrape> server_scrapes;
  TimeAnchor anchor;  // the run's realtime anchor
  bool interrupted = false;
  // kExitOk, kExitRunInvalid (a validity rule broke) or kExitInterrupted.
  int exit_code() const;
};

// Runs the load. Fails (without running) on invalid settings, an unreadable dataset
// or a server that cannot be reached at all (Unavailable); request failures during
// the run are data in the result, never a Status.
StatusOr<BenchResult> RunBench(const BenchSettings& settings,
                               const std::atomic<bool>* cancel = nullptr);

}  // namespace servebench::client
