// RunBench: the coordinator of one load run. It prepares everything that can be
// prepared (prompts, request bytes, schedule, connections) before the measured
// phase starts, runs the worker threads, then computes the summary with metrics/.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <random>
#include <thread>

#include "client/category_mix.h"
#include "client/chat_trace_prompts.h"
#include "client/client.h"
#include "client/dataset.h"
#include "client/length_mixture.h"
#include "client/live_replies.h"
#include "client/load_worker.h"
#include "client/metrics_poller.h"
#include "client/prefix_pool.h"
#include "client/request_builder.h"
#include "client/schedule.h"
#include "client/server_hooks.h"
#include "client/server_tokenizer.h"
#include "client/stage_summary.h"
#include "client/stop_rules.h"
#include "client/trace_replay.h"
#include "common/atomic_file.h"
#include "common/clock.h"
#include "common/exit_codes.h"
#include "common/log.h"
#include "common/progress_line.h"
#include "common/time_format.h"
#include "common/version.h"
#include "metrics/scrape_series.h"
#include "metrics/simulated_time.h"
#include "net/http_fetch.h"
#include "net/server_probe.h"
#include "net/transport.h"
#include "net/url.h"
#include "telemetry/power_session.h"
#include "telemetry/role_gpus.h"
#include "trace/trace_loader.h"

namespace servebench::client {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using metrics::RequestRecord;
using net::HttpFetch;
using net::HttpReply;
using net::MakeTlsContext;
using net::ParseUrl;
using net::TlsOptions;
using net::Url;

// Raises the open-file limit to its hard maximum: each stream is a socket.
void RaiseFileLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

int64_t MaxRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// vllm bench's result file names carry the local time.
std::string LocalDate() { return FormatNow("%Y%m%d-%H%M%S", TimeZone::kLocal); }

struct PhasePlan {
  std::vector<Job>* jobs = nullptr;
  bool closed_loop = true;
  int64_t max_in_flight = 0;  // closed loop: loops; open loop: cap (0 = none)
  double rate_per_s = 0;
  bool fixed_schedule = false;    // open loop on a trace's timestamps
  LaneSchedule* lanes = nullptr;  // closed-loop trace replay (one worker)
  LiveReplies* live = nullptr;    // with lanes: live assistant turns (live_replies.h)
  int workers = 1;
  int64_t duration_ns = 0, grace_ns = 0;   // the duration bound (0 = none)
  const StopRuleSettings* stop = nullptr;  // stop rules (measured phase only)
  // Closed loop with a concurrency schedule: (offset ns, total slots), by offset; empty
  // = max_in_flight throughout. Split over workers as max_in_flight is.
  std::vector<std::pair<int64_t, int64_t>> concurrency_steps;
  double clock_scale = 1;      // wall s per s of the run's clock
  int64_t progress_total = 0;  // the progress line's request count (0 = every job)
};

struct PhaseOutcome {
  std::vector<RequestRecord> records;
  int64_t start_ns = 0;
  int64_t connections_opened = 0;
  int64_t reconnects = 0, stale_connections = 0;
  int paced_workers = 0, realtime_pacers = 0;  // workers whose sends a pacer made
  int64_t events = 0;
  int64_t reads = 0, kernel_stamped_reads = 0;
  LagHistogram receive_lag;
  bool cancelled = false;
  bool prompts_left = false;  // closed loop, lanes: the duration ended before every job started
  std::optional<StopDecision> stopped;  // the stop rule that ended the issue window
};

// `clock_scale`: wall seconds per second of the server's clock. Against a compressed
// sim the token rate is shown per simulated second, as every number of the result is:
// a wall-clock rate there would be 1 / scale times what the simulated GPUs can do.
std::string ProgressText(const Progress& p, int64_t total, int64_t start_ns, double clock_scale) {
  double elapsed = static_cast<double>(MonotonicNowNs() - start_ns) / 1e9;
  const bool simulated = clock_scale > 0 && clock_scale != 1.0;
  const double rate_elapsed = simulated ? elapsed / clock_scale : elapsed;
  int64_t done = p.done.load(std::memory_order_relaxed);
  int64_t failed = p.failed.load(std::memory_order_relaxed);
  int64_t tokens = p.tokens.load(std::memory_order_relaxed);
  int64_t finished = done + failed;
  std::string eta = finished > 0 && finished < total && elapsed > 0
                        ? ", ETA " + FormatDuration(elapsed / static_cast<double>(finished) *
                                                    static_cast<double>(total - finished))
                        : "";
  return fmt::format(
      "{}/{} requests done, {} failed, {:.0f} tok/s{}, max client lag {:.3f} ms, {}{}", finished,
      total, failed, rate_elapsed > 0 ? static_cast<double>(tokens) / rate_elapsed : 0.0,
      simulated ? " (simulated)" : "",
      static_cast<double>(p.max_issue_delay_ns.load(std::memory_order_relaxed)) / 1e6,
      FormatDuration(elapsed), eta);
}

PhaseOutcome RunPhase(const PhasePlan& plan, const asio::ip::tcp::resolver::results_type& endpoints,
                      asio::ssl::context* tls, const Url& url, const BenchSettings& s,
                      const std::atomic<bool>* cancel, bool show_progress) {
  PhaseOutcome out;
  Progress progress;
  PhaseStart start;
  std::atomic<int64_t> next_job{0};
  int w_count = std::max(1, plan.workers);
  start.not_ready.store(w_count);
  std::vector<std::unique_ptr<LoadWorker>> workers;
  int64_t n_jobs = static_cast<int64_t>(plan.jobs->size());
  std::atomic<bool> stop{false};
  std::string stop_reason;  // written before `stop` is set
  for (int w = 0; w < w_count; ++w) {
    WorkerConfig c;
    c.endpoints = endpoints;
    c.tls = tls;
    c.host = url.host;
    // Live assistant turns need every reply's text; LiveReplies drops what the run
    // does not keep.
    c.keep_text = s.keep_generated_text || plan.live != nullptr;
    c.live = plan.live;
    c.kernel_rx_timestamps = s.kernel_rx_timestamps;
    c.request_timeout_s = s.request_timeout_s;
    c.closed_loop = plan.closed_loop;
    c.duration_ns = plan.duration_ns;
    c.grace_ns = plan.grace_ns;
    int64_t cap = plan.max_in_flight;
    int64_t share = cap > 0 ? cap / w_count + (w < cap % w_count ? 1 : 0) : 0;
    c.slots = share;
    for (const auto& [at_ns, total] : plan.concurrency_steps) {
      c.slot_steps.emplace_back(at_ns, total / w_count + (w < total % w_count ? 1 : 0));
    }
    c.jobs = plan.jobs;
    c.next_job = &next_job;
    c.lanes = plan.lanes;
    if (!plan.closed_loop && plan.lanes == nullptr) {
      for (int64_t i = w; i < n_jobs; i += w_count) c.my_jobs.push_back(static_cast<size_t>(i));
    }
    int64_t mine = plan.closed_loop ? share : static_cast<int64_t>(c.my_jobs.size());
    if (!plan.closed_loop && share > 0) mine = std::min(mine, share);
    if (!plan.closed_loop && (plan.rate_per_s > 0 || plan.fixed_schedule) && share == 0) {
      mine = std::min<int64_t>(mine, 64);
    }
    if (plan.lanes != nullptr) mine = std::min<int64_t>(plan.max_in_flight, 64);
    c.preconnect = std::min<int64_t>(mine, 20000);
    // An open-loop schedule (a trace's fixed schedule, a request rate: Poisson or gamma
    // arrivals, ramps, stages) is sent by a pacing thread (load_worker.h), so a request
    // leaves on time while this worker parses other streams. Not under a cap (arrivals
    // then wait for a slot, on the loop) nor on TLS (only the loop writes its records).
    c.paced_sends = !plan.closed_loop && plan.lanes == nullptr &&
                    (plan.fixed_schedule || plan.rate_per_s > 0) && share == 0 && tls == nullptr;
    c.start = &start;
    c.cancel = cancel;
    c.stop = &stop;
    c.stop_reason = &stop_reason;
    c.progress = &progress;
    workers.push_back(std::make_unique<LoadWorker>(std::move(c)));
  }
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->Run(); });
  // Every worker connected: start 2 ms from now so all threads see the same start.
  for (int v = start.not_ready.load(); v != 0; v = start.not_ready.load()) start.not_ready.wait(v);
  out.start_ns = MonotonicNowNs() + 2'000'000;
  start.start_ns.store(out.start_ns);
  start.start_ns.notify_all();
  // Stop rules: judged every 5 ms from the workers' counters (stop_rules.h).
  std::atomic<bool> phase_over{false};
  std::thread monitor;
  if (plan.stop != nullptr && plan.stop->any()) {
    monitor = std::thread([&] {
      StopMonitor rules(*plan.stop, plan.clock_scale, out.start_ns);
      while (!phase_over.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        StopSample x;
        x.t_ns = MonotonicNowNs();
        x.done = progress.done.load(std::memory_order_relaxed);
        x.failed = progress.failed.load(std::memory_order_relaxed);
        x.ttft_count = progress.ttft_count.load(std::memory_order_relaxed);
        x.ttft_sum_ns = progress.ttft_sum_ns.load(std::memory_order_relaxed);
        if (std::optional<StopDecision> d = rules.Observe(x)) {
          Log(LogLevel::kWarning, "stopping the run: {}", d->reason);
          stop_reason = d->reason;
          out.stopped = std::move(d);
          stop.store(true);
          return;
        }
      }
    });
  }
  const int64_t shown_total = plan.progress_total > 0 ? plan.progress_total : n_jobs;
  if (show_progress) {
    // Redrawn on a terminal, a plain line every few seconds otherwise (CI logs).
    ProgressLine line("  ", true);
    std::atomic<bool> finished{false};
    std::thread progress_thread([&] {
      while (!finished.load()) {
        line.Update(ProgressText(progress, shown_total, out.start_ns, plan.clock_scale));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
    for (auto& t : threads) t.join();
    finished.store(true);
    progress_thread.join();
    line.Finish(ProgressText(progress, shown_total, out.start_ns, plan.clock_scale));
  } else {
    for (auto& t : threads) t.join();
  }
  phase_over.store(true);
  if (monitor.joinable()) monitor.join();
  for (auto& w : workers) {
    out.connections_opened += w->connections_opened();
    out.reconnects += w->reconnects();
    out.stale_connections += w->stale_connections();
    if (std::optional<bool> realtime = w->pacer_realtime()) {
      ++out.paced_workers;
      out.realtime_pacers += *realtime ? 1 : 0;
    }
    out.cancelled = out.cancelled || w->cancelled();
    out.receive_lag.Merge(w->receive_lag());
    for (RequestRecord& r : w->records()) out.records.push_back(std::move(r));
  }
  // Lanes not finished: the duration ended the replay before every turn went.
  out.prompts_left = plan.lanes != nullptr ? !plan.lanes->finished()
                                           : plan.closed_loop && next_job.load() < n_jobs;
  out.events = progress.events.load();
  out.reads = progress.reads.load();
  out.kernel_stamped_reads = progress.kernel_stamped_reads.load();
  return out;
}

// One /metrics scrape; nullopt when it failed, with a warning unless `quiet` (the
// poller's scrapes: a gap each, the before/after scrapes already warn).
std::optional<std::vector<metrics::PromSample>> Scrape(const std::string& metrics_url,
                                                       const TlsOptions& tls, bool quiet = false) {
  StatusOr<Url> url = ParseUrl(metrics_url);
  if (!url.ok()) return std::nullopt;
  std::string path = url->path.empty() ? "/" : url->path;
  Url base = *url;
  base.path.clear();
  StatusOr<HttpReply> reply = HttpFetch(base, path, "", 10.0, {}, tls);
  if (!reply.ok() || reply->status != 200) {
    if (quiet) return std::nullopt;
    Log(LogLevel::kWarning, "metrics scrape of {} failed: {}", metrics_url,
        reply.ok() ? fmt::format("HTTP {}", reply->status) : reply.status().ToString());
    return std::nullopt;
  }
  auto samples = metrics::ParsePrometheusText(reply->body);
  if (!samples.ok()) {
    if (quiet) return std::nullopt;
    Log(LogLevel::kWarning, "{}", samples.status().ToString());
    return std::nullopt;
  }
  return std::move(*samples);
}

json::value ReceiveLagJson(const LagHistogram& h) {
  if (h.count() == 0) return nullptr;
  auto us = [](int64_t ns) { return static_cast<double>(ns) / 1e3; };
  return json::object{{"reads", h.count()},
                      {"p50", us(h.PercentileNs(50))},
                      {"p99", us(h.PercentileNs(99))},
                      {"p99.9", us(h.PercentileNs(99.9))},
                      {"max", us(h.max_ns())}};
}

int AutoWorkers(int64_t concurrency) {
  int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int64_t want = (concurrency + 1999) / 2000;  // one loop comfortably holds 2,000 streams
  return static_cast<int>(std::clamp<int64_t>(want, 1, hw));
}

json::object RunObject(const BenchSettings& s, const Url& url, const PromptSet& prompts,
                       const ServerTokenizer& tokenizer, int workers, bool interrupted,
                       int64_t anchor_realtime_ns, int64_t anchor_monotonic_ns) {
  json::object o;
  o["servebench_version"] = kVersion;
  o["git_revision"] = kGitRevision;
  o["base_url"] = fmt::format("{}://{}{}", url.tls ? "https" : "http", url.HostHeader(), url.path);
  o["endpoint"] = EffectiveEndpoint(s);
  o["dataset_name"] = s.dataset_name;
  o["dataset_path"] = s.dataset_path;
  o["dataset_note"] = prompts.note;
  // How text prompts were counted: the /tokenize shape used, or why none (null when
  // nothing needed counting: token-id prompts).
  o["server_tokenizer"] =
      tokenizer.note.empty() ? json::value(nullptr) : json::value(tokenizer.note);
  o["random_input_len"] = s.random_input_len;
  o["random_output_len"] = s.random_output_len;
  o["random_range_ratio"] = s.random_range_ratio;
  o["range_ratio_semantics"] =
      s.range_ratio_semantics == RangeRatioSemantics::kVllm ? "vllm" : "inferencex";
  o["random_prefix_len"] = s.random_prefix_len;
  const char* gaps = s.arrival == ArrivalProcess::kConstant ? "constant"
                     : s.burstiness == 1.0                  ? "poisson"
                                                            : "gamma";
  o["arrival"] = ConcurrencyStages(s.stages)            ? "concurrency_stages"
                 : !s.stages.empty()                    ? "stages"
                 : s.concurrency_ramp_s > 0             ? "closed_loop_ramp"
                 : s.ramp == RampStrategy::kLinear      ? "ramp_linear"
                 : s.ramp == RampStrategy::kExponential ? "ramp_exponential"
                 : s.request_rate_per_s <= 0
                     ? (s.max_concurrency > 0 ? "closed_loop" : "all_at_once")
                     : gaps;
  o["gaps"] = gaps;
  if (s.concurrency_ramp_s > 0) o["concurrency_ramp_s"] = s.concurrency_ramp_s;
  if (s.ramp != RampStrategy::kNone) {
    o["ramp_start_rps"] = s.ramp_start_rps;
    o["ramp_end_rps"] = s.ramp_end_rps;
  }
  o["seed"] = s.seed;
  o["num_warmups"] = s.num_warmups;
  o["ignore_eos"] = s.ignore_eos;
  o["continuous_usage_stats"] = s.continuous_usage_stats;
  o["tool_call_workload"] = s.tool_call_workload;
  o["tool_choice"] = s.tool_call_workload ? json::value(s.tool_choice) : json::value(nullptr);
  o["request_timeout_s"] = s.request_timeout_s;
  // The client_saturated limit this run was judged by (metrics.md §8 says 1 ms).
  o["client_issue_delay_limit_ms"] = s.client_issue_delay_limit_ms;
  o["workers"] = workers;
  o["interrupted"] = interrupted;
  o["anchor_realtime_ns"] = anchor_realtime_ns;
  o["anchor_monotonic_ns"] = anchor_monotonic_ns;
  return o;
}

// The point's GPU count (reference power.md §4): tp × pp × pcp, or P + D.
int ExpectedGpus(const metrics::GpuTopology& g) {
  if (g.prefill_gpus > 0) return g.prefill_gpus + g.decode_gpus;
  return g.num_gpus;
}

// The measured window (metrics.md §4): the main phase's schedule start to the last
// t_done of any measured request.
int64_t WindowEndNs(const std::vector<RequestRecord>& records, int64_t start_ns) {
  int64_t end = start_ns;
  for (const RequestRecord& r : records) {
    if (!r.warmup) end = std::max(end, r.t_done_ns);
  }
  return end;
}

}  // namespace

int BenchResult::exit_code() const {
  if (interrupted) return kExitInterrupted;
  return summary.validity.valid() ? kExitOk : kExitRunInvalid;
}

namespace {

// What the run derives from what was asked: a multi-stage run's prompts and duration
// come from its stages.
BenchSettings Derived(const BenchSettings& asked) {
  BenchSettings s = asked;
  if (!s.stages.empty()) {
    // Concurrency stages: a closed loop of the largest stage's slots, num_prompts the
    // most it may send.
    if (!ConcurrencyStages(s.stages)) s.num_prompts = StagedRequests(s.stages);
    s.duration_s = 0;
    for (const LoadStage& st : s.stages) {
      s.duration_s += st.duration_s;
      s.max_concurrency = std::max(s.max_concurrency, st.concurrency);
    }
  }
  return s;
}

// The closed loop's concurrency schedule (PhasePlan::concurrency_steps), offsets in
// the schedule's seconds (simulated against a compressed sim) times `scale`.
std::vector<std::pair<int64_t, int64_t>> ConcurrencySteps(const BenchSettings& s, double scale) {
  std::vector<std::pair<int64_t, int64_t>> out;
  auto ns = [&](double t_s) { return static_cast<int64_t>(std::llround(t_s * 1e9 * scale)); };
  if (ConcurrencyStages(s.stages)) {
    double t_s = 0;
    for (const LoadStage& st : s.stages) {
      out.emplace_back(ns(t_s), st.concurrency);
      t_s += st.duration_s;
    }
  } else if (s.concurrency_ramp_s > 0 && s.max_concurrency > 0) {
    int64_t c_max = s.max_concurrency;
    for (int64_t c = 1; c <= c_max; ++c) {
      double at = c_max == 1 ? 0
                             : s.concurrency_ramp_s * static_cast<double>(c - 1) /
                                   static_cast<double>(c_max - 1);
      out.emplace_back(ns(at), c);
    }
  }
  return out;
}

// Arrival offsets of the measured phase (schedule.h); empty offsets = all at time 0.
std::vector<int64_t> MeasuredSchedule(const BenchSettings& s) {
  if (ConcurrencyStages(s.stages)) return {};  // a closed loop: no arrival times
  if (!s.stages.empty()) return MakeStagedSchedule(s.stages, s.burstiness, s.arrival, s.seed);
  if (s.ramp != RampStrategy::kNone) {
    return MakeRampSchedule(s.num_prompts, s.ramp_start_rps, s.ramp_end_rps, s.ramp, s.burstiness,
                            s.arrival, s.seed);
  }
  return MakeArrivalSchedule(s.num_prompts, s.request_rate_per_s, s.burstiness, s.arrival, s.seed);
}

// The highest rate the schedule offers (0 = no rate: closed loop or all at once).
double PeakRate(const BenchSettings& s) {
  double r = s.request_rate_per_s;
  if (s.ramp != RampStrategy::kNone) r = std::max(s.ramp_start_rps, s.ramp_end_rps);
  for (const LoadStage& st : s.stages) r = std::max(r, st.rate_per_s);
  return r;
}

}  // namespace

StatusOr<BenchResult> RunBench(const BenchSettings& asked, const std::atomic<bool>* cancel) {
  SB_RETURN_IF_ERROR(Validate(asked));
  BenchSettings derived = Derived(asked);
  // A trace is read and checked before anything else: its rows are the prompts and
  // its timestamps the schedule, and a bad row stops the run here.
  std::optional<TraceWorkload> workload;
  std::optional<LaneSchedule> lanes;
  // The schedule's seconds are the server's: against a compressed sim they pass
  // time_scale times faster on the wall clock (time scale 0 has no time base: wall).
  const double wall_per_s = asked.time_scale > 0 ? asked.time_scale : 1.0;
  if (trace::IsTraceFormatName(asked.dataset_name)) {
    SB_ASSIGN_OR_RETURN(workload, LoadTraceWorkload(asked));
    derived.num_prompts = static_cast<int64_t>(workload->refs.size());
    if (workload->lanes) {
      LaneScheduleSettings ls;
      ls.lanes = asked.max_concurrency;
      // Recorded delays ÷ speed-up are the run's seconds, compressed as its clock is.
      ls.speedup = asked.trace_speedup / wall_per_s;
      ls.tree_idle_cap_ns = static_cast<int64_t>(asked.trace_idle_gap_cap_s * 1e9 * wall_per_s);
      ls.system_idle_cap_ns = static_cast<int64_t>(asked.system_idle_gap_cap_s * 1e9 * wall_per_s);
      ls.start_min_ratio = asked.trajectory_start_min_ratio;
      ls.start_max_ratio = asked.trajectory_start_max_ratio;
      ls.seed = asked.seed;
      ls.warmup_per_lane = asked.warmup_requests_per_lane;
      lanes.emplace(workload->trace, ls);
      // Measured: every turn but the history before the start positions and the
      // warm-ups.
      derived.num_prompts -= lanes->skipped_turns() + lanes->num_warmup_jobs();
    }
  }
  const BenchSettings s = std::move(derived);
  SB_ASSIGN_OR_RETURN(Url url, ParseUrl(s.base_url));
  RaiseFileLimit();
  std::string api_key;
  if (std::string name = ApiKeyVariable(s); !name.empty()) {
    if (const char* k = std::getenv(name.c_str()); k != nullptr) api_key = k;
  }

  asio::io_context resolve_io;
  asio::ip::tcp::resolver resolver(resolve_io);
  boost::system::error_code ec;
  auto endpoints = resolver.resolve(url.host, url.port, ec);
  if (ec) {
    return Status::Unavailable(
        fmt::format("--base-url {}: cannot resolve {}: {}", s.base_url, url.host, ec.message()));
  }
  // The TLS settings first: an unreadable --ssl-ca-cert is bad input, not an
  // unreachable server.
  std::unique_ptr<asio::ssl::context> tls;
  if (url.tls) {
    SB_ASSIGN_OR_RETURN(tls, MakeTlsContext(s.tls));
  }
  // Reachability: any HTTP reply will do; nothing listening, or a server that never
  // answers, fails the run up front (server_probe.h).
  SB_RETURN_IF_ERROR(net::ProbeServer(s.base_url, s.tls));

  bool chat = IsChatEndpoint(s);
  ServerTokenizer tokenizer;
  const bool pool = s.dataset_name == kPrefixPoolDataset;  // a prefix pool (prefix_pool.h)
  // Token-id prompts (random and the pool on /v1/completions) need no counting.
  if (!workload && s.tokenize_chat_prompts && (chat || (s.dataset_name != "random" && !pool))) {
    tokenizer = ProbeServerTokenizer(
        url, s.served_model_name.empty() ? s.model : s.served_model_name, s.tls);
  }
  PromptSet prompts;
  std::string chat_tokenizer_note;
  uint64_t cache_bust_run_id = 0;
  if (workload && workload->chat) {
    // Chat messages of exact length need the server's template and tokenizer.
    const ChatTokenizer chat_tokenizer =
        ProbeChatTokenizer(url, s.served_model_name.empty() ? s.model : s.served_model_name, s.tls,
                           &chat_tokenizer_note);
    // Fresh per run, as AIPerf derives its markers from the run's UUID: two runs of
    // one trace share no block.
    cache_bust_run_id = (static_cast<uint64_t>(std::random_device{}()) << 32) ^
                        static_cast<uint64_t>(std::random_device{}());
    SB_RETURN_IF_ERROR(MakeChatTracePrompts(s, chat_tokenizer, cache_bust_run_id, &*workload));
  }
  if (workload) {
    prompts = std::move(workload->prompts);
  } else {
    SB_ASSIGN_OR_RETURN(prompts, MakePrompts(s, chat, tokenizer.count));
  }
  SB_ASSIGN_OR_RETURN(RequestTemplate tmpl, MakeRequestTemplate(s, url, api_key));

  // GPU power: the source is opened (an unusable named source is bad input, before
  // any load) and started before the warm-ups; idle power, when asked for, first.
  std::string metrics_url =
      s.metrics_url.empty()
          ? fmt::format("{}://{}{}/metrics", url.tls ? "https" : "http", url.HostHeader(), url.path)
          : s.metrics_url;
  telemetry::TelemetrySettings power_settings = s.telemetry;
  if (s.scrape_metrics) power_settings.server_metrics_url = metrics_url;
  if (telemetry::RequirePowerFromEnv()) power_settings.require_power = true;
  telemetry::HttpGet http_get = telemetry::NetHttpGet(s.tls);
  std::optional<double> idle_power_w = s.idle_power_w;
  std::vector<std::string> idle_notes;
  if (!s.idle_power_note.empty()) idle_notes.push_back(s.idle_power_note);
  if (s.idle_power_s > 0) {
    telemetry::IdlePower idle =
        telemetry::MeasureIdlePower(power_settings, http_get, s.idle_power_s, cancel);
    idle_power_w = idle.per_gpu_w;
    if (!idle.per_gpu_w) idle_notes.push_back("idle power not measured: " + idle.why);
  }
  TimeAnchor anchor = TimeAnchor::Now();
  SB_ASSIGN_OR_RETURN(std::unique_ptr<telemetry::PowerSession> power,
                      telemetry::PowerSession::Open(power_settings, anchor, http_get));
  power->Begin(cancel);

  // Consumes the prompts' payloads (BuildRequests); their counts stay.
  auto make_jobs = [&](std::vector<Prompt>& ps, bool warmup, const std::vector<int64_t>& offsets) {
    std::vector<std::string> requests = BuildRequests(tmpl, &ps, s.ignore_eos);
    std::vector<Job> jobs(ps.size());
    for (size_t i = 0; i < ps.size(); ++i) {
      jobs[i].index = static_cast<int64_t>(i);
      jobs[i].warmup = warmup;
      // Arrival times are the recipe's, in simulated time: a compressed simulated
      // server is sent them compressed (BenchSettings::time_scale).
      jobs[i].offset_ns =
          offsets.empty()
              ? 0
              : static_cast<int64_t>(std::llround(static_cast<double>(offsets[i]) * s.time_scale));
      jobs[i].request = std::move(requests[i]);
      jobs[i].client_prompt_tokens = ps[i].prompt_tokens;
      jobs[i].max_tokens = ps[i].max_tokens;
    }
    return jobs;
  };

  BenchResult result;
  bool show_progress = s.progress;
  // Lanes' warm-up (start primers and --warmup-requests-per-lane): a phase of its own,
  // before the server's counters are read, its records flagged warm-up as --num-warmups'
  // are. Jobs keep the lanes' numbering; only the warm-up ones are built, one token each.
  if (lanes && lanes->warming_up()) {
    std::vector<Job> warm(lanes->num_jobs());
    for (size_t j = 0; j < warm.size(); ++j) {
      warm[j].index = static_cast<int64_t>(j);
      warm[j].warmup = true;
      if (!lanes->is_warmup(j)) continue;
      Prompt p = prompts.measured[j];
      p.max_tokens = 1;
      warm[j].request = BuildRequest(tmpl, p, s.ignore_eos);
      warm[j].client_prompt_tokens = p.prompt_tokens;
      warm[j].max_tokens = 1;
    }
    PhasePlan plan;
    plan.jobs = &warm;
    plan.closed_loop = false;
    plan.lanes = &*lanes;
    plan.max_in_flight = s.max_concurrency;
    PhaseOutcome w = RunPhase(plan, endpoints, tls.get(), url, s, cancel, false);
    for (RequestRecord& r : w.records) result.records.push_back(std::move(r));
    lanes->EndWarmup();
  }
  if (!prompts.warmups.empty()) {
    std::vector<Job> warm = make_jobs(prompts.warmups, true, {});
    PhasePlan plan;
    plan.jobs = &warm;
    plan.closed_loop = true;
    plan.max_in_flight =
        s.max_concurrency > 0 ? std::min<int64_t>(s.max_concurrency, s.num_warmups) : s.num_warmups;
    PhaseOutcome w = RunPhase(plan, endpoints, tls.get(), url, s, cancel, false);
    for (RequestRecord& r : w.records) result.records.push_back(std::move(r));
  }

  std::vector<int64_t> offsets = workload ? workload->offsets_ns : MeasuredSchedule(s);
  PhasePlan plan;
  // A trace's fixed schedule is open loop; --max-concurrency then caps what is in flight.
  plan.closed_loop = !workload && PeakRate(s) <= 0 && s.max_concurrency > 0;
  plan.fixed_schedule = workload.has_value() && !workload->lanes;
  std::optional<LiveReplies> live;
  if (lanes) {
    plan.lanes = &*lanes;
    plan.progress_total = s.num_prompts;  // the jobs also hold history and warm-up turns
    if (workload->live_replies) {
      live.emplace(*workload, prompts.measured, *lanes, tmpl, s.ignore_eos, s.keep_generated_text);
      plan.live = &*live;
    }
  }
  bool schedule_cut = false;  // open loop: arrivals at or after the duration's end dropped
  plan.concurrency_steps = ConcurrencySteps(s, wall_per_s);
  if (s.duration_s > 0) {
    plan.duration_ns = static_cast<int64_t>(s.duration_s * 1e9 * wall_per_s);
    plan.grace_ns = static_cast<int64_t>(s.grace_period_s * 1e9 * wall_per_s);
    if (!plan.closed_loop && plan.lanes == nullptr) {
      // The schedule is sorted: keep the arrivals due inside the issue window.
      size_t keep = static_cast<size_t>(std::lower_bound(offsets.begin(), offsets.end(),
                                                         static_cast<int64_t>(s.duration_s * 1e9)) -
                                        offsets.begin());
      schedule_cut = keep < offsets.size();
      offsets.resize(keep);
      prompts.measured.resize(keep);
    }
  }
  std::vector<int> component_of;  // measured index → its ISL/OSL mixture component
  if (!s.sequence_distribution.empty()) {
    for (const Prompt& p : prompts.measured) component_of.push_back(p.component);
  }
  std::vector<std::string> category_of;  // measured index → its conversation's category
  const bool conversations = s.dataset_name == "speed_bench" || s.dataset_name == "spec_bench";
  if (conversations) {
    for (const Prompt& p : prompts.measured) category_of.push_back(p.category);
  }
  std::vector<PoolPromptInfo> pool_prompts;  // measured index → its pool prefix
  if (pool) {
    for (const Prompt& p : prompts.measured)
      pool_prompts.push_back({p.prefix_group, p.prefix_tokens});
  }
  std::vector<Job> jobs = make_jobs(prompts.measured, false, offsets);
  prompts.measured.clear();
  prompts.measured.shrink_to_fit();
  plan.jobs = &jobs;
  plan.max_in_flight = s.max_concurrency;
  plan.rate_per_s = PeakRate(s);
  plan.stop = &s.stop;
  plan.clock_scale = s.time_scale;
  int64_t concurrency = s.max_concurrency > 0 ? s.max_concurrency : s.num_prompts;
  plan.workers = s.num_workers > 0 ? s.num_workers : AutoWorkers(concurrency);
  plan.workers =
      static_cast<int>(std::min<int64_t>(plan.workers, std::max<int64_t>(concurrency, 1)));
  if (plan.lanes != nullptr) plan.workers = 1;  // the lanes' state lives on one thread

  // Hooks (server_hooks.h): the cache reset after every warm-up, before the counters
  // are read; the profiler wraps the measured phase alone.
  // Both go to every engine process of a session of several (their router has neither
  // a prefix cache nor a profiler), else to the server itself.
  std::optional<std::vector<HookOutcome>> reset_hooks, start_profile_hooks, stop_profile_hooks;
  auto profile_hook = [&](const char* endpoint, double timeout_s) {
    if (!s.engine_processes.empty()) {
      return CallHookOnEach(s.engine_processes, endpoint, "--profile", timeout_s, s.tls);
    }
    return std::vector<HookOutcome>{CallHook(url, endpoint, "--profile", timeout_s, s.tls)};
  };
  if (s.reset_prefix_cache) {
    reset_hooks = s.engine_processes.empty()
                      ? std::vector<HookOutcome>{ResetPrefixCache(url, s.tls)}
                      : ResetPrefixCacheOnEach(s.engine_processes, s.tls);
  }
  // A prefix pool's primers: each pool prefix once, after the reset and before the
  // counters are read, so the measured phase finds the pool cached (prefix_pool.h).
  if (!prompts.primers.empty()) {
    std::vector<Job> primers = make_jobs(prompts.primers, true, {});
    PhasePlan primer_plan;
    primer_plan.jobs = &primers;
    primer_plan.closed_loop = true;
    const int64_t n = static_cast<int64_t>(primers.size());
    primer_plan.max_in_flight = s.max_concurrency > 0 ? std::min(s.max_concurrency, n) : n;
    PhaseOutcome w = RunPhase(primer_plan, endpoints, tls.get(), url, s, cancel, false);
    for (RequestRecord& r : w.records) result.records.push_back(std::move(r));
  }
  std::optional<std::vector<metrics::PromSample>> before, after;
  if (s.scrape_metrics) before = Scrape(metrics_url, s.tls);
  if (s.profile) start_profile_hooks = profile_hook("/start_profile", 60.0);
  // KV usage over time: /metrics every --metrics-interval-s while the measured phase runs.
  std::optional<MetricsPoller> poller;
  if (s.scrape_metrics && s.metrics_interval_s > 0) {
    poller.emplace([&metrics_url, &s] { return Scrape(metrics_url, s.tls, /*quiet=*/true); },
                   s.metrics_interval_s);
    poller->Start();
  }

  int64_t anchor_rt = anchor.realtime_ns;
  int64_t anchor_mono = anchor.monotonic_ns;
  double cpu_before = CpuSeconds();
  PhaseOutcome main = RunPhase(plan, endpoints, tls.get(), url, s, cancel, show_progress);
  double cpu_s = CpuSeconds() - cpu_before;
  if (poller) result.server_scrapes = poller->Stop();
  int64_t end_mono = MonotonicNowNs();
  int64_t end_rt = RealtimeNowNs();
  // Stopping may take minutes on a real engine (it writes the trace before it answers).
  if (s.profile) stop_profile_hooks = profile_hook("/stop_profile", 600.0);
  if (s.scrape_metrics && !main.cancelled) after = Scrape(metrics_url, s.tls);
  result.interrupted = main.cancelled;
  int64_t issued = static_cast<int64_t>(main.records.size());
  for (RequestRecord& r : main.records) result.records.push_back(std::move(r));
  // What ended the issue window (recorded as servebench.run.ended_by).
  std::string ended_by = result.interrupted  ? "interrupted"
                         : main.stopped      ? main.stopped->rule
                         : !s.stages.empty() ? "stages"
                         : s.duration_s > 0 && (schedule_cut || main.prompts_left) ? "duration"
                                                                                   : "prompts";
  if (s.duration_s > 0 && ended_by == "prompts") {
    Log(LogLevel::kWarning,
        "--duration {} s: every one of the {} prompts was issued before the duration ended; "
        "raise --num-prompts for a run bounded by time",
        s.duration_s, jobs.size());
  }

  // A simulated server with a compressed clock stamped its simulated time on every
  // chunk: every number of this run is then computed in that clock (docs/metrics.md,
  // "Simulated time"), and the records kept are the simulated ones.
  // The power window is on the client's monotonic clock, the samplers' clock: taken
  // from the records before they are rewritten into simulated time.
  const int64_t power_window_end_ns = WindowEndNs(result.records, main.start_ns);
  int64_t main_start_ns = main.start_ns;
  std::optional<metrics::SimulatedTimeView> simulated =
      metrics::ToSimulatedTime(result.records, main.start_ns);
  if (simulated) {
    result.records = std::move(simulated->records);
    main_start_ns = simulated->main_phase_start_ns;
  }

  metrics::SummaryInputs in;
  // A duration-bounded run is judged against what it issued (cut requests included:
  // they are failures), not against the prompt cap it did not reach.
  // So is a run a stop rule ended: judged against what it issued before the stop.
  in.requested_prompts =
      (s.duration_s > 0 || main.stopped) && !result.interrupted ? issued : s.num_prompts;
  in.main_phase_start_ns = main_start_ns;
  in.percentiles = s.percentiles;
  for (double p : s.metric_percentiles) {
    if (std::find(in.percentiles.begin(), in.percentiles.end(), p) == in.percentiles.end()) {
      in.percentiles.push_back(p);
    }
  }
  in.goodput = s.goodput;
  in.gpus = s.gpus;
  in.ignore_eos = s.ignore_eos;
  in.spec_decoding_on = s.spec_decoding;
  if (before && after) {
    in.spec_before = metrics::ExtractSpecCounters(*before);
    in.spec_after = metrics::ExtractSpecCounters(*after);
    in.lag_before = metrics::ExtractServerLag(*before);
    in.lag_after = metrics::ExtractServerLag(*after);
  }
  in.client_issue_delay_limit_ms = s.client_issue_delay_limit_ms;
  in.server_lag_limit_ms = s.server_lag_limit_ms;
  result.summary = metrics::ComputeRunSummary(result.records, in);
  // The engine's prefix-cache counters over the measured phase, for a trace's or a
  // pool's expected hits (prefix_hit_check.h).
  std::optional<PrefixCacheSide> cache_counters;
  if (before && after) {
    cache_counters = PrefixCacheSide{metrics::ExtractPrefixCacheCounters(*before),
                                     metrics::ExtractPrefixCacheCounters(*after)};
  }
  json::object prefix_cache;
  if (workload) {
    prefix_cache =
        PrefixCacheReport(*workload, result.records, s, cache_counters, &result.summary.validity);
  } else if (pool) {
    prefix_cache =
        PrefixPoolReport(s, pool_prompts, chat, static_cast<int64_t>(prompts.primers.size()),
                         result.records, cache_counters, &result.summary.validity);
  }

  // Power over the window; --require-power makes invalid power invalidate the run.
  result.power_samples = power->End(power_window_end_ns, cancel);
  telemetry::PowerInputs power_in;
  power_in.samples = result.power_samples ? &*result.power_samples : nullptr;
  power_in.unavailable_note = power->unavailable();
  power_in.anchor = anchor;
  double source_scale = result.power_samples ? result.power_samples->info.time_scale : 1.0;
  // The RunSummary's duration in the source's seconds, for the clock check: already
  // simulated seconds when the records were rewritten, else wall / time_scale.
  double source_duration_s = simulated          ? result.summary.duration_s
                             : source_scale > 0 ? result.summary.duration_s / source_scale
                                                : 0;
  power_in.window = {main.start_ns, power_window_end_ns, source_duration_s};
  power_in.work = {result.summary.completed, result.summary.total_input_tokens,
                   result.summary.total_output_tokens};
  power_in.expected_gpus = ExpectedGpus(s.gpus);
  power_in.idle_power_w = idle_power_w;
  // A disaggregated session's prefill and decode GPUs, where the plan's GPUs match the
  // sampled ones (telemetry/role_gpus.h).
  std::string no_split;
  if (result.power_samples) {
    power_in.roles = telemetry::RoleGpusOf(power_settings.session_workers,
                                           result.power_samples->gpus, &no_split);
  }
  result.power = telemetry::ComputePowerReport(power_in);
  if (!no_split.empty()) result.power.notes.push_back(no_split);
  for (const std::string& n : idle_notes) result.power.notes.push_back(n);
  if (power_settings.require_power && !result.power.valid()) {
    std::string why;
    for (const std::string& code : result.power.validity.reason_codes())
      why += (why.empty() ? "" : ", ") + code;
    result.summary.validity.Add("power_invalid", "--require-power: power is invalid (" + why + ")");
  }
  result.anchor = anchor;

  result.self.cpu_s = cpu_s;
  result.self.events = main.events;
  result.self.cpu_us_per_event =
      main.events > 0 ? cpu_s * 1e6 / static_cast<double>(main.events) : 0;
  result.self.workers = plan.workers;
  result.self.connections_opened = main.connections_opened;
  result.self.reconnects = main.reconnects;
  result.self.stale_connections = main.stale_connections;

  metrics::ResultHeader h;
  h.date = LocalDate();
  h.backend = s.backend;
  h.label = s.label;
  h.model_id = s.model;
  h.tokenizer_id = s.tokenizer_id.empty() ? s.model : s.tokenizer_id;
  h.num_prompts = s.num_prompts;
  h.metadata = s.metadata;
  h.request_rate = s.request_rate_per_s;
  h.burstiness = s.burstiness;
  h.max_concurrency = s.max_concurrency;
  h.percentile_metrics = s.percentile_metrics;
  h.metric_percentiles = s.metric_percentiles;
  double start_unix = static_cast<double>(anchor_rt + (main.start_ns - anchor_mono)) / 1e9;
  h.benchmark_start_time_unix = start_unix;
  h.benchmark_end_time_unix = static_cast<double>(end_rt) / 1e9;
  h.save_detailed = s.save_detailed;
  json::object run = RunObject(s, url, prompts, tokenizer, plan.workers, result.interrupted,
                               anchor_rt, anchor_mono);
  run["duration_s"] = s.duration_s > 0 ? json::value(s.duration_s) : nullptr;
  run["grace_period_s"] = s.duration_s > 0 ? json::value(s.grace_period_s) : nullptr;
  run["ended_by"] = ended_by;
  // Where /metrics was scraped (null: not scraped), the series' endpoint.
  run["metrics_url"] = s.scrape_metrics ? json::value(metrics_url) : json::value(nullptr);
  run["requests_offered"] = issued;  // sent, or cut while waiting for a slot
  // The stop rule that ended the run, in words (null when none fired).
  run["stop_reason"] = main.stopped ? json::value(main.stopped->reason) : json::value(nullptr);
  // Which clock every time and number of this result is in: "simulated" (the
  // server's stamps, docs/metrics.md "Simulated time") or "wall" (the client's).
  run["clock"] = simulated ? "simulated" : "wall";
  run["time_scale"] = simulated ? json::value(simulated->time_scale) : json::value(nullptr);
  run["server_lag_limit_ms"] = s.server_lag_limit_ms;
  h.servebench_extra["run"] = std::move(run);
  if (!s.stages.empty()) {
    h.servebench_extra["stages"] =
        StageSummariesJson(SummarizeStages(result.records, s.stages, main_start_ns, in));
  }
  if (!s.sequence_distribution.empty()) {
    h.servebench_extra["sequence_distribution"] =
        RealisedMixtureJson(s.sequence_distribution, component_of, result.records);
  }
  if (conversations) {
    h.servebench_extra["category_mix"] = CategoryMixJson(s, prompts, category_of, result.records);
  }
  h.servebench_extra["client"] =
      json::object{{"cpu_s", cpu_s},
                   {"events", main.events},
                   {"cpu_us_per_event", result.self.cpu_us_per_event},
                   {"workers", plan.workers},
                   {"connections_opened", main.connections_opened},
                   // Keep-alive connections the server closed without saying so
                   // (load_worker.h): requests re-sent on a new connection after the
                   // race, and pooled connections found closed before reuse.
                   {"reconnects", main.reconnects},
                   {"stale_connections", main.stale_connections},
                   // An open-loop schedule's pacing threads (send_pacer.h), null when none
                   // paced: how many workers paced and how many of them ran at a
                   // real-time priority (without one a busy host can delay sends).
                   {"pacer", main.paced_workers == 0
                                 ? json::value(nullptr)
                                 : json::value(json::object{{"workers", main.paced_workers},
                                                            {"realtime", main.realtime_pacers}})},
                   {"max_rss_kb", MaxRssKb()},
                   // What the event times were (client_settings.h): "kernel_receive" when the
                   // kernel stamped reads (the counts say whether all), else "read".
                   {"event_timestamps", main.kernel_stamped_reads > 0 ? "kernel_receive" : "read"},
                   {"reads", main.reads},
                   {"kernel_stamped_reads", main.kernel_stamped_reads},
                   // How late the client read what the kernel had received: its own delay, kept
                   // out of the metrics by kernel stamps (null without them).
                   {"receive_lag_us", ReceiveLagJson(main.receive_lag)},
                   {"measured_phase_wall_s", static_cast<double>(end_mono - main.start_ns) / 1e9}};
  h.servebench_extra["power"] = telemetry::PowerReportJson(result.power);
  // KV usage over the measured phase (null when it was not scraped periodically).
  h.servebench_extra["kv_usage"] =
      poller ? json::value(metrics::KvUsageJson(result.server_scrapes, s.metrics_interval_s))
             : json::value(nullptr);
  // Each hook asked for, with its HTTP status (null: not asked); a hook sent to each
  // process of a session is an array of one outcome per process.
  auto hooks_json = [&](const std::optional<std::vector<HookOutcome>>& o) {
    if (!o) return json::value(nullptr);
    if (s.engine_processes.empty()) return HookJson(o->front());
    json::array each;
    for (const HookOutcome& one : *o) each.push_back(HookJson(one));
    return json::value(std::move(each));
  };
  h.servebench_extra["hooks"] = json::object{{"reset_prefix_cache", hooks_json(reset_hooks)},
                                             {"start_profile", hooks_json(start_profile_hooks)},
                                             {"stop_profile", hooks_json(stop_profile_hooks)}};
  if (pool) h.servebench_extra["prefix_cache"] = std::move(prefix_cache);
  if (workload) {
    h.servebench_extra["prefix_cache"] = std::move(prefix_cache);
    h.servebench_extra["trace"] = json::object{
        {"format", trace::TraceFormatName(workload->trace.format)},
        {"path", s.dataset_path},
        {"trees", workload->trace.trees.size()},
        {"turns", workload->refs.size()},
        {"dropped_subagents", workload->trace.dropped_subagents},
        {"schedule", lanes ? "lanes" : "fixed"},
        {"lanes", lanes ? json::value(s.max_concurrency) : json::value(nullptr)},
        {"max_live_trees", lanes ? json::value(lanes->max_live_trees()) : json::value(nullptr)},
        {"trace_speedup", s.trace_speedup},
        // How the prompts were made (docs/agentic.md, "Chat prompts").
        {"prompts", workload->chat ? "chat_messages" : "token_ids"},
        {"prompts_note",
         s.trace_prompts_note.empty() ? json::value(nullptr) : json::value(s.trace_prompts_note)},
        {"assistant_turns", !workload->chat
                                ? json::value(nullptr)
                                : json::value(workload->live_replies ? "live" : "pre-canned")},
        // Live: replies threaded into later turns, and how many were empty (failed turns).
        {"live_replies", live ? json::value(live->threaded_replies()) : json::value(nullptr)},
        {"live_replies_missing",
         live ? json::value(live->missing_replies()) : json::value(nullptr)},
        {"chat_tokenizer",
         workload->chat ? json::value(chat_tokenizer_note) : json::value(nullptr)},
        {"cache_bust", s.cache_bust},
        {"cache_bust_run_id", s.cache_bust == "none"
                                  ? json::value(nullptr)
                                  : json::value(fmt::format("{:016x}", cache_bust_run_id))}};
    if (lanes) {
      json::object& t = h.servebench_extra["trace"].as_object();
      auto opt = [](const std::optional<double>& v) {
        return v ? json::value(*v) : json::value(nullptr);
      };
      // What the closed-loop semantics used (docs/agentic.md "Closed-loop lanes").
      t["trace_idle_gap_cap_s"] = s.trace_idle_gap_cap_s;
      t["system_idle_gap_cap_s"] = s.system_idle_gap_cap_s;
      t["tree_idle_cap_shifts"] = lanes->tree_cap_shifts();
      t["system_idle_cap_shifts"] = lanes->system_cap_shifts();
      t["idle_cap_shifted_s"] = static_cast<double>(lanes->shifted_ns()) / 1e9 / wall_per_s;
      t["trajectory_start_min_ratio"] = opt(s.trajectory_start_min_ratio);
      t["trajectory_start_max_ratio"] = opt(s.trajectory_start_max_ratio);
      json::array starts, profiled;
      for (int64_t k : lanes->start_turns()) starts.push_back(k);
      for (int64_t k : lanes->profile_turns()) profiled.push_back(k);
      t["start_turns"] = std::move(starts);             // per lane: root turn k
      t["first_profiled_turns"] = std::move(profiled);  // per lane: after the warm-up
      t["skipped_turns"] = lanes->skipped_turns();
      t["warmup_requests_per_lane"] = s.warmup_requests_per_lane;
      t["warmup_primers"] = lanes->num_primers();
      t["warmup_requests"] = lanes->num_warmup_jobs();
    }
  }
  result.result = metrics::BuildResultJson(result.summary, h, result.records);
  result.header = std::move(h);

  if (!s.requests_jsonl_path.empty()) {
    std::string lines;
    for (const RequestRecord& r : result.records) {
      json::object line = metrics::RequestRecordJson(r);
      // Lanes' warm-ups are turns of the trace too (numbered as the measured ones).
      if (workload && (!r.warmup || lanes)) {
        AddTurnFields(*workload, static_cast<size_t>(r.index), &line);
      }
      lines += json::serialize(line);
      lines += '\n';
    }
    SB_RETURN_IF_ERROR(WriteFileAtomically(s.requests_jsonl_path, lines));
  }
  if (!s.server_metrics_jsonl_path.empty() && poller) {
    SB_RETURN_IF_ERROR(WriteFileAtomically(s.server_metrics_jsonl_path,
                                           metrics::ScrapesToJsonl(result.server_scrapes)));
  }
  return result;
}

}  // namespace servebench::client
