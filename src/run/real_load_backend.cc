#include <algorithm>
#include <filesystem>
#include <iostream>

#include "client/client.h"
#include "client/prefix_pool.h"
#include "common/atomic_file.h"
#include "common/speed_bench_names.h"
#include "recipe/agentic_trace.h"
#include "record/record_builder.h"
#include "run/aggregate.h"
#include "run/real_backends.h"
#include "run/search_point.h"
#include "telemetry/power_session.h"
#include "telemetry/samples_csv.h"

namespace servebench::run {

namespace {

// Where the engine's own /metrics is: `base_url`'s, except behind a captured router
// (serve.command.router), where the load goes to the router and the engine listens on
// the command's port on the same host (InferenceX's scripts point AIPerf's
// AIPERF_SERVER_METRICS_URLS there too: the engine's counters, spec decoding's
// acceptance among them, are not the router's).
std::string EngineMetricsUrl(const recipe::ServeSpec& serve, const std::string& base_url) {
  if (serve.command.router.argv.empty()) return base_url + "/metrics";
  const size_t colon = base_url.rfind(':');
  return base_url.substr(0, colon) + ":" + std::to_string(serve.command.port) + "/metrics";
}

}  // namespace

client::BenchSettings BenchSettingsFor(const recipe::Point& point, const RunSettings& settings,
                                       const std::string& base_url,
                                       const std::string& requests_path) {
  const recipe::LoadSpec& load = point.load;
  client::BenchSettings b;
  b.base_url = base_url;
  b.metrics_url = EngineMetricsUrl(point.serve, base_url);
  b.endpoint = load.endpoint;
  b.model = point.serve.model;
  b.served_model_name = point.serve.served_model_name;
  b.dataset_name = load.dataset == "random-prefix" ? "random" : load.dataset;
  b.dataset_path = load.dataset_path;
  const bool trace_replay = recipe::IsTraceReplay(load);
  if (!trace_replay) {  // a trace sets each prompt's lengths itself
    b.random_input_len = load.isl;
    b.random_output_len = load.osl;
  }
  // A conversation dataset's output length is the scenario's osl (perf-eval passes
  // output_len as --speed-bench-output-len); its input is the rows' own.
  // The rows it selects are the client flags in the load's extra arguments
  // (common/speed_bench_names.h; the nightly format writes them).
  if (load.dataset == "speed_bench" || load.dataset == "spec_bench") {
    const ConversationSelection selection = ConversationSelectionOf(load.extra_args);
    if (load.dataset == "speed_bench") {
      b.speed_bench_subset = selection.speed_bench_subset;
      b.speed_bench_category = selection.speed_bench_category;
      if (load.osl > 0) b.speed_bench_output_len = load.osl;
    } else {
      b.spec_bench_category = selection.spec_bench_category;
      if (load.osl > 0) b.spec_bench_output_len = load.osl;
    }
  }
  if (load.dataset == client::kPrefixPoolDataset) {
    // A prefix pool (recipe/point.h LoadSpec): isl is the whole prompt, osl the output;
    // the expected hits count the engine's own KV block when the recipe sets one.
    b.prefix_pool.prefix_len = load.prefix_len;
    b.prefix_pool.suffix_len = load.isl - load.prefix_len;
    b.prefix_pool.num_prefixes = load.num_prefixes;
    b.prefix_pool.output_len = load.osl;
    b.prefix_pool.reuse_ratio = load.prefix_reuse_ratio;
    if (auto block = recipe::KvBlockTokens(point.serve)) b.engine_block_tokens = *block;
  }
  b.random_range_ratio = load.random_range_ratio;
  // 0 means exact lengths in both conventions only under vLLM's; InferenceX's
  // [L·r, L] is what its recipes mean by a non-zero ratio.
  b.range_ratio_semantics = load.random_range_ratio > 0 ? client::RangeRatioSemantics::kInferenceX
                                                        : client::RangeRatioSemantics::kVllm;
  int64_t prompts =
      load.num_prompts > 0
          ? load.num_prompts
          : std::max<int64_t>(int64_t{load.concurrency} * settings.default_prompts_per_concurrency,
                              settings.min_prompts);
  b.num_prompts = prompts;
  b.max_concurrency = load.concurrency;
  b.request_rate_per_s = load.request_rate_per_s;
  b.num_warmups = load.warmups_per_concurrency > 0
                      ? int64_t{load.warmups_per_concurrency} * load.concurrency
                      : load.num_warmups;
  b.ignore_eos = load.ignore_eos;
  b.request_timeout_s = settings.request_timeout_s;
  b.reset_prefix_cache = settings.reset_prefix_cache;
  b.profile = settings.profile;
  b.client_issue_delay_limit_ms = settings.client_issue_delay_limit_ms;
  b.server_lag_limit_ms = settings.server_lag_limit_ms;
  // A simulated engine with a compressed clock is offered the recipe's arrival
  // schedule compressed too (its numbers are in simulated time either way).
  b.time_scale = recipe::SimTimeScale(point.serve).value_or(1.0);
  // The same GPUs the record divides by (the prefill/decode split when multinode).
  b.gpus = record::GpuTopologyOf(point.serve);
  b.spec_decoding = point.serve.spec.method != recipe::SpecMethod::kNone;
  b.requests_jsonl_path = requests_path;
  // The /metrics scrapes beside the per-request records.
  if (!requests_path.empty()) {
    b.server_metrics_jsonl_path =
        std::filesystem::path(requests_path).replace_extension(".server_metrics.jsonl").string();
  }
  b.metadata = {{"point_id", point.point_id}, {"recipe", point.recipe}};
  b.telemetry = settings.telemetry;
  // The GPUs the engine runs on, when its recipe pins them (docs/power.md "GPUs"); only
  // these names are copied (the rest of serve.env may hold secrets).
  for (const char* var : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}) {
    if (auto it = point.serve.env.find(var); it != point.serve.env.end())
      b.telemetry.engine_env[var] = it->second;
  }
  if (trace_replay) {
    // An agentic point replays its trace (recipe/agentic_trace.h) in closed-loop lanes:
    // its concurrency is the number of live trees (InferenceX's CONC), its duration
    // bounds the replay, and the expected hit fraction counts the engine's own blocks.
    // No --num-warmups prompts (they would seed the cache): an agentic point's lanes
    // warm up as AIPerf's do (below).
    b.num_warmups = 0;
    b.duration_s = load.duration_s;
    if (auto block = recipe::KvBlockTokens(point.serve)) b.engine_block_tokens = *block;
    if (load.scenario == "agentic-coding") {
      // What InferenceX's build_replay_cmd gives AIPerf (recipe/agentic_trace.h).
      const recipe::AgenticLaneSettings& lanes = recipe::kInferenceXAgenticLanes;
      b.seed = lanes.seed;
      b.trace_idle_gap_cap_s = lanes.trace_idle_gap_cap_s;
      b.system_idle_gap_cap_s = lanes.system_idle_gap_cap_s;
      b.trajectory_start_min_ratio = lanes.trajectory_start_min_ratio;
      b.trajectory_start_max_ratio = lanes.trajectory_start_max_ratio;
      b.warmup_requests_per_lane = lanes.warmup_requests_per_lane;
      // Chat messages with the [rid:...] marker where the engine can count them; token ids
      // on /v1/completions (and why, in the result) where it cannot.
      b.cache_bust = recipe::AgenticCacheBust(load.endpoint);
      b.trace_prompts_note = recipe::AgenticTokenIdsReason(point.serve, load.endpoint);
    }
  }
  // The point's progress line (bench's, inside `run`'s point k of N).
  b.progress = true;
  return b;
}

void NativeLoadBackend::OnEngineReady(const recipe::Point& first_point, const std::string& base_url,
                                      const std::vector<RoleEndpoint>& roles,
                                      const std::atomic<bool>* cancel) {
  idle_power_w_.reset();
  idle_note_.clear();
  workers_.clear();
  engine_processes_.clear();
  for (const RoleEndpoint& r : roles) {
    if (r.role == "router") continue;  // no GPU, no prefix cache, no profiler
    workers_.push_back({r.role, r.url, r.gpus});
    engine_processes_.push_back({r.process, r.base_url});
  }
  if (settings_.idle_power_s <= 0) return;
  telemetry::TelemetrySettings t = settings_.telemetry;
  t.server_metrics_url = EngineMetricsUrl(first_point.serve, base_url);
  t.session_workers = workers_;
  telemetry::IdlePower idle =
      telemetry::MeasureIdlePower(t, telemetry::NetHttpGet(), settings_.idle_power_s, cancel);
  idle_power_w_ = idle.per_gpu_w;
  if (idle.per_gpu_w) {
    std::cerr << "servebench: idle power " << *idle.per_gpu_w << " W per GPU (" << idle.source
              << ", " << settings_.idle_power_s << " s)\n";
  } else {
    idle_note_ = "idle power not measured: " + idle.why;
  }
}

void NativeLoadBackend::AddSession(client::BenchSettings* bench) const {
  bench->telemetry.session_workers = workers_;
  if (bench->profile || bench->reset_prefix_cache) bench->engine_processes = engine_processes_;
  bench->idle_power_w = idle_power_w_;
  bench->idle_power_note = idle_note_;
}

SearchOutcome NativeLoadBackend::Search(const recipe::Point& point, const std::string& base_url,
                                        const std::atomic<bool>* cancel) {
  SearchOutcome out;
  StatusOr<search::SearchSettings> settings = SearchSettingsFor(point, settings_, base_url);
  if (!settings.ok()) {
    out.status = settings.status();
    return out;
  }
  out.settings = std::move(*settings);
  AddSession(&out.settings.bench);
  out.result =
      search::RunSloSearch(out.settings, search::BenchProbeRunner(out.settings, cancel), cancel);
  return out;
}

LoadOutcome NativeLoadBackend::Run(const recipe::Point& point, const std::string& base_url,
                                   const std::string& requests_path,
                                   const std::atomic<bool>* cancel) {
  LoadOutcome out;
  // Nightly repetitions: the whole benchmark again on the warm server; the median of
  // each key is kept with every raw run (aggregate.h).
  int repetitions = std::max(1, point.load.repetitions);
  std::vector<boost::json::object> runs;
  out.valid = true;
  for (int i = 0; i < repetitions; ++i) {
    std::string path =
        repetitions == 1 ? requests_path : requests_path + ".run" + std::to_string(i + 1);
    client::BenchSettings bench = BenchSettingsFor(point, settings_, base_url, path);
    AddSession(&bench);
    auto result = client::RunBench(bench, cancel);
    if (!result.ok()) {
      out.error = result.status().message();
      if (runs.empty()) return out;
      out.interrupted = true;  // keep what the earlier repetitions measured
      break;
    }
    out.completed = true;
    out.valid = out.valid && result->summary.validity.valid();
    for (const auto& reason : result->summary.validity.reason_codes()) {
      if (std::find(out.invalid_reasons.begin(), out.invalid_reasons.end(), reason) ==
          out.invalid_reasons.end()) {
        out.invalid_reasons.push_back(reason);
      }
    }
    if (out.failure_summary.empty() && result->summary.failed > 0) {
      out.failure_counts = metrics::FailureCounts(result->summary);
      out.failure_summary = metrics::FailureSummary(result->summary);
    }
    if (result->power_samples && !path.empty()) {
      // The raw samples beside the per-request records, in InferenceX's CSV shape.
      std::string csv = std::filesystem::path(path).replace_extension(".gpu_metrics.csv").string();
      if (WriteFileAtomically(csv, telemetry::SamplesToCsv(*result->power_samples, result->anchor))
              .ok()) {
        out.power_samples_path = csv;
      }
    }
    if (!bench.server_metrics_jsonl_path.empty() && bench.scrape_metrics &&
        bench.metrics_interval_s > 0) {
      out.server_metrics_path = bench.server_metrics_jsonl_path;
    }
    runs.push_back(std::move(result->result));
    if (result->interrupted) {
      out.interrupted = true;
      break;
    }
  }
  out.summary =
      runs.size() == 1 && repetitions == 1 ? std::move(runs.front()) : AggregateMedian(runs);
  out.requests_path = requests_path;
  return out;
}

}  // namespace servebench::run
