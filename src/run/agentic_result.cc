#include "run/agentic_result.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "common/atomic_file.h"
#include "metrics/headline.h"
#include "metrics/percentile.h"
#include "recipe/result_name.h"
#include "run/agentic_server_metrics.h"
#include "run/engine_log_kv.h"

namespace servebench::run {
namespace json = boost::json;
namespace {

// The statistics of every InferenceX block (reference/agentic.md §4.2).
const std::vector<double> kPercentiles = {50, 75, 90, 95};

// {mean, p50, p75, p90, p95, std} (population std, linear percentiles); {} when empty.
json::object StatBlock(const std::vector<double>& samples) {
  json::object o;
  if (samples.empty()) return o;
  const metrics::Stats s = metrics::ComputeStats(samples, kPercentiles);
  o["mean"] = s.mean;
  for (size_t i = 0; i < kPercentiles.size(); ++i)
    o[fmt::format("p{}", static_cast<int>(kPercentiles[i]))] = s.percentile_values[i];
  o["std"] = s.std;
  return o;
}

// Interactivity of a latency block: 1 / each statistic (the slow tail stays the slow
// tail), and the std of the per-request inverses.
json::object InverseBlock(const json::object& latency, const std::vector<double>& samples) {
  json::object o;
  for (const char* key : {"mean", "p50", "p75", "p90", "p95"}) {
    const json::value* v = latency.if_contains(key);
    if (v != nullptr && v->as_double() > 0) o[key] = 1.0 / v->as_double();
  }
  std::vector<double> inverse;
  for (double x : samples)
    if (x > 0) inverse.push_back(1.0 / x);
  if (!inverse.empty()) o["std"] = metrics::ComputeStats(inverse, {}).std;
  return o;
}

// Milliseconds → seconds, keeping only finite positive values (InferenceX's _ms_to_s).
void AddSeconds(const std::optional<double>& ms, std::vector<double>* out) {
  if (ms && std::isfinite(*ms) && *ms > 0) out->push_back(*ms / 1000.0);
}

json::object LatencyBlock(const std::vector<const AgenticRequest*>& ok) {
  std::vector<double> ttft, e2el, itl, e2el_per_token;
  for (const AgenticRequest* r : ok) {
    AddSeconds(r->ttft_ms, &ttft);
    AddSeconds(r->e2el_ms, &e2el);
    AddSeconds(r->itl_ms, &itl);
    if (r->e2el_ms && *r->e2el_ms > 0 && r->output_tokens > 0)
      e2el_per_token.push_back(*r->e2el_ms / 1000.0 / static_cast<double>(r->output_tokens));
  }
  json::object itl_block = StatBlock(itl);
  json::object o;
  o["ttft"] = StatBlock(ttft);
  o["e2el"] = StatBlock(e2el);
  o["itl"] = itl_block;
  o["tpot"] = itl_block;  // AIPerf's inter_token_latency is servebench's TPOT (§4.2)
  o["intvty"] = InverseBlock(itl_block, itl);
  o["e2e_norm_intvty"] = InverseBlock(StatBlock(e2el_per_token), e2el_per_token);
  // AIPerf's full_response_inter_token_latency has no servebench counterpart: empty, as
  // InferenceX writes it for records without that metric.
  o["full_response_itl"] = json::object();
  o["full_response_intvty"] = json::object();
  return o;
}

// Completions per 1 s window [t, t + 1) from the first completion while the window
// ends by the last one (InferenceX's compute_qps_stats, float steps included).
json::object QpsBlock(const std::vector<const AgenticRequest*>& ok) {
  std::vector<double> ends;
  for (const AgenticRequest* r : ok)
    if (r->end_ns != 0) ends.push_back(static_cast<double>(r->end_ns) / 1e9);
  if (ends.size() < 2) return {};
  std::sort(ends.begin(), ends.end());
  const double duration = ends.back() - ends.front();
  if (duration <= 0) return {};
  constexpr double kWindow = 1.0;
  std::vector<double> qps;
  for (double t = ends.front(); t + kWindow <= ends.back(); t += kWindow) {
    const auto n = std::count_if(ends.begin(), ends.end(),
                                 [&](double e) { return t <= e && e < t + kWindow; });
    qps.push_back(static_cast<double>(n) / kWindow);
  }
  json::object o{{"window_seconds", kWindow}, {"samples", qps.size()}};
  if (qps.empty()) {
    o["mean"] = static_cast<double>(ends.size()) / duration;
  } else {
    for (auto& kv : StatBlock(qps)) o[kv.key()] = kv.value();
  }
  return o;
}

json::object TokensBlock(const std::vector<const AgenticRequest*>& ok) {
  std::vector<double> in, out;
  for (const AgenticRequest* r : ok) {
    in.push_back(static_cast<double>(r->input_tokens));
    out.push_back(static_cast<double>(r->output_tokens));
  }
  // output_expected is the trace's recorded `out` of the top-level turn at each record's
  // turn_index (InferenceX's trace_metadata.py, read from the HF cache); servebench does
  // not carry the trace's top-level turn list into its records, so it is empty, as
  // InferenceX writes it when the trace is not in its cache.
  return json::object{
      {"input", StatBlock(in)}, {"output_actual", StatBlock(out)}, {"output_expected", {}}};
}

json::object ThroughputBlock(const std::vector<const AgenticRequest*>& ok, int num_gpus) {
  if (ok.empty()) return {};
  int64_t first_start = ok.front()->start_ns, last_end = ok.front()->end_ns;
  int64_t input = 0, output = 0;
  for (const AgenticRequest* r : ok) {
    first_start = std::min(first_start, r->start_ns);
    last_end = std::max(last_end, r->end_ns);
    input += r->input_tokens;
    output += r->output_tokens;
  }
  const double duration = static_cast<double>(last_end - first_start) / 1e9;
  if (duration <= 0) return {};
  const double in_tps = static_cast<double>(input) / duration;
  const double out_tps = static_cast<double>(output) / duration;
  const double total_tps = static_cast<double>(input + output) / duration;
  json::object per_gpu;
  if (num_gpus > 0) {
    per_gpu["total_tput_tps"] = total_tps / num_gpus;
    per_gpu["output_tput_tps"] = out_tps / num_gpus;
    per_gpu["input_tput_tps"] = in_tps / num_gpus;
  }
  return json::object{{"input", {{"tokens_per_second", in_tps}}},
                      {"output", {{"tokens_per_second", out_tps}}},
                      {"total", {{"tokens_per_second", total_tps}}},
                      {"duration_seconds", duration},
                      {"per_gpu", std::move(per_gpu)}};
}

// AIPerf's theoretical_prefix_cache_hit as a fraction: sum / count when both are
// there, else avg (÷ 100 in unit "%"); null when absent.
json::value TheoreticalHit(const json::object& aiperf) {
  const json::value* m = aiperf.if_contains("theoretical_prefix_cache_hit");
  if (m == nullptr || !m->is_object()) return nullptr;
  const json::object& o = m->as_object();
  auto number = [&](const char* key) -> std::optional<double> {
    const json::value* v = o.if_contains(key);
    if (v == nullptr || !v->is_number()) return std::nullopt;
    return v->to_number<double>();
  };
  if (auto sum = number("sum"), count = number("count"); sum && count && *count > 0)
    return *sum / *count;
  auto avg = number("avg");
  if (!avg) return nullptr;
  const json::value* unit = o.if_contains("unit");
  const bool percent = unit != nullptr && unit->is_string() && unit->as_string() == "%";
  return percent ? *avg / 100.0 : *avg;
}

// InferenceX's server_metrics block when no server_metrics_export.json exists:
// servebench scrapes the engine's counters at the run's start and end only (its own
// hit rate is servebench.prefix_cache.server in the bench result), not AIPerf's
// per-metric time series, so nothing is present; the token totals come from the records.
json::object ServerMetricsBlock(const std::vector<const AgenticRequest*>& ok) {
  json::object block = EmptyServerMetricsBlock(false, 0);
  json::object& tokens = block["tokens"].as_object();
  if (!ok.empty()) {
    int64_t in = 0, out = 0;
    for (const AgenticRequest* r : ok) {
      in += r->input_tokens;
      out += r->output_tokens;
    }
    tokens["prompt_total"] = in;
    tokens["generation_total"] = out;
  }
  tokens["requests_completed"] = ok.size();
  return block;
}

// records_* counts as InferenceX's load_records_with_accounting keeps them: a record is
// profiled when it is neither a warm-up nor an error; error categories by failure kind.
json::object Accounting(const std::vector<AgenticRequest>& requests, size_t profiled) {
  int64_t warmup = 0, errors = 0;
  std::map<std::string, int64_t> categories;
  for (const AgenticRequest& r : requests) {
    if (r.warmup) ++warmup;
    if (!r.ok) {
      ++errors;
      ++categories[r.failure.empty() ? "unknown" : r.failure];
    }
  }
  json::object cats;
  for (const auto& [k, n] : categories) cats[k] = n;
  return json::object{{"records_total", requests.size()},
                      {"records_profiled", profiled},
                      {"records_dropped_total", requests.size() - profiled},
                      {"records_warmup_dropped", warmup},
                      {"records_error_dropped", errors},
                      {"error_categories", std::move(cats)}};
}

const json::value* Path(const json::object& root, std::initializer_list<const char*> keys) {
  const json::object* o = &root;
  const json::value* v = nullptr;
  for (const char* k : keys) {
    if (o == nullptr) return nullptr;
    v = o->if_contains(k);
    if (v == nullptr) return nullptr;
    o = v->is_object() ? &v->as_object() : nullptr;
  }
  return v;
}

int64_t IntAt(const json::object& root, std::initializer_list<const char*> keys) {
  const json::value* v = Path(root, keys);
  return v != nullptr && v->is_int64() ? v->as_int64() : 0;
}

json::object Count(int64_t n) { return json::object{{"avg", n}, {"unit", "requests"}}; }

}  // namespace

std::string AgenticResultName(const recipe::Point& point, const std::string& runner_node) {
  return recipe::InferenceXResultName(point, runner_node, {});
}

json::value RoundFloats(const json::value& v) {
  if (v.is_double()) {
    const double x = v.as_double();
    if (!std::isfinite(x)) return x;
    // Correctly rounded decimal text, as Python's round(x, 5) rounds.
    char text[64];
    std::snprintf(text, sizeof text, "%.5f", x);
    const double r = std::strtod(text, nullptr);
    if (std::fabs(r) >= 1 && r == std::floor(r) && std::fabs(r) < 9e18)
      return static_cast<int64_t>(r);
    return r;
  }
  if (v.is_object()) {
    json::object o;
    for (const auto& kv : v.as_object()) o[kv.key()] = RoundFloats(kv.value());
    return o;
  }
  if (v.is_array()) {
    json::array a;
    for (const json::value& x : v.as_array()) a.push_back(RoundFloats(x));
    return a;
  }
  return v;
}

json::object AiperfAggregateJson(const std::vector<AgenticRequest>& requests,
                                 const LoadOutcome& load) {
  int64_t ok = 0, errors = 0;
  for (const AgenticRequest& r : requests) {
    if (r.warmup) continue;  // AIPerf counts the profiling phase only
    (r.ok ? ok : errors) += 1;
  }
  json::object o;
  o["request_count"] = Count(ok);
  o["error_request_count"] = Count(errors);
  o["completed_request_count"] = Count(ok + errors);
  const json::value* fraction =
      Path(load.summary, {"servebench", "prefix_cache", "expected", "block_fraction"});
  if (fraction != nullptr && fraction->is_number()) {
    // servebench keeps the fraction (6 decimals), not AIPerf's block sum and count.
    o["theoretical_prefix_cache_hit"] =
        json::object{{"avg", fraction->to_number<double>() * 100.0}, {"unit", "%"}};
  }
  json::object dataset{{"source_type", "servebench_trace"}};
  if (const json::value* trace = Path(load.summary, {"servebench", "trace"});
      trace != nullptr && trace->is_object()) {
    for (const char* k : {"format", "path", "trees", "turns", "prompts", "cache_bust"})
      if (const json::value* x = trace->as_object().if_contains(k)) dataset[k] = *x;
  }
  json::array reasons;
  for (const std::string& r : load.invalid_reasons) reasons.emplace_back(r);
  o["metadata"] = json::object{{"dataset", std::move(dataset)},
                               {"scenario", nullptr},  // servebench runs no AIPerf scenario
                               {"submission_valid", load.valid},
                               {"submission_invalid_reasons", std::move(reasons)}};
  return o;
}

StatusOr<json::object> AgenticAggregateJson(const std::vector<AgenticRequest>& requests,
                                            const json::object& aiperf, const recipe::Point& point,
                                            const json::object* server_metrics_export,
                                            const LogKvCapacity& log_kv) {
  const recipe::ServeSpec& s = point.serve;
  if (s.multinode) {
    return Status::FailedPrecondition(
        "InferenceX's agentic aggregate of a multinode point (prefill_*/decode_* identity) is "
        "not built yet");
  }
  json::value backend = nullptr;
  if (s.kv_offloading == "none") {
    if (!s.kv_offload_backend.empty()) {
      return Status::InvalidArgument("serve.kv_offload_backend '" + s.kv_offload_backend +
                                     "' is set but serve.kv_offloading is none");
    }
  } else {
    if (s.kv_offload_backend.empty()) {
      return Status::InvalidArgument("serve.kv_offloading is '" + s.kv_offloading +
                                     "' but serve.kv_offload_backend is empty");
    }
    json::object b{{"name", s.kv_offload_backend}};
    if (!s.kv_offload_backend_version.empty()) b["version"] = s.kv_offload_backend_version;
    backend = std::move(b);
  }
  std::vector<const AgenticRequest*> ok;
  for (const AgenticRequest& r : requests)
    if (!r.warmup && r.ok) ok.push_back(&r);
  // All GPUs of the replica, tp × pp × pcp (metrics/headline.h), InferenceX's divisor.
  const int gpus =
      metrics::SingleNodeTopology({.tp = s.tp, .pp = s.pp, .pcp_size = s.pcp_size, .ep = s.ep})
          .total();

  json::object agg;
  agg["hw"] = point.runner.empty() ? s.hardware : point.runner;
  agg["conc"] = point.load.concurrency;
  agg["image"] = s.image;
  agg["recipe_fingerprint"] = "";  // InferenceX's RECIPE_FINGERPRINT: no servebench counterpart
  agg["model"] = s.model;
  agg["infmax_model_prefix"] = point.model_prefix;
  agg["framework"] = s.framework.empty() ? s.engine : s.framework;
  agg["precision"] = s.precision;
  agg["spec_decoding"] = recipe::InferenceXSpecName(s.spec.method);
  agg["disagg"] = s.disagg;
  agg["scenario_type"] = "agentic-coding";
  agg["is_multinode"] = false;
  agg["tp"] = s.tp;
  agg["ep"] = s.ep;
  agg["dp_attention"] = s.dp_attn ? "true" : "false";
  agg["kv_offloading"] = s.kv_offloading;
  agg["kv_offload_backend"] = std::move(backend);
  agg["allocated_cpu_dram_gb"] = s.total_cpu_dram_gb;
  agg["num_requests_total"] = requests.size();
  agg["num_requests_successful"] = ok.size();
  agg["request_accounting"] = Accounting(requests, ok.size());
  agg["pp"] = s.pp;
  agg["dcp_size"] = s.dcp_size;
  agg["pcp_size"] = s.pcp_size;
  if (!s.router_name.empty() && !s.router_version.empty())
    agg["router"] = json::object{{"name", s.router_name}, {"version", s.router_version}};
  if (!s.kv_p2p_transfer.empty()) agg["kv_p2p_transfer"] = s.kv_p2p_transfer;
  if (const json::value* d = Path(aiperf, {"metadata", "dataset"}); d != nullptr && d->is_object())
    agg["dataset"] = *d;

  json::value theoretical = TheoreticalHit(aiperf);
  agg["request_metrics"] = json::object{{"qps", QpsBlock(ok)},
                                        {"latency", LatencyBlock(ok)},
                                        {"tokens", TokensBlock(ok)},
                                        {"throughput", ThroughputBlock(ok, gpus)},
                                        {"cache", {{"theoretical_cache_hit_rate", theoretical}}}};
  json::array warnings;
  if (server_metrics_export != nullptr) {
    int64_t in = 0, out = 0;
    for (const AgenticRequest* r : ok) {
      in += r->input_tokens;
      out += r->output_tokens;
    }
    agg["server_metrics"] =
        EngineServerMetricsBlock(*server_metrics_export, static_cast<int64_t>(ok.size()), in, out);
  } else {
    agg["server_metrics"] = ServerMetricsBlock(ok);
    warnings.emplace_back("server_metrics_export.json missing or empty");
  }
  // The KV capacity the engine's log states (engine_log_kv.h), in the format of
  // InferenceX's adapter for the export (Dynamo's inherits vLLM's), or, without an
  // export, of the adapter its framework names (detect_backend by framework); ATOM's
  // states none. It replaces SGLang's gauge, as in InferenceX.
  const std::string adapter = server_metrics_export != nullptr
                                  ? ServerMetricsAdapter(*server_metrics_export)
                              : s.framework.starts_with("dynamo") ? "dynamo-vllm"
                                                                  : s.framework;
  const std::optional<int64_t> log_capacity = adapter == "vllm" || adapter == "dynamo-vllm"
                                                  ? log_kv.vllm
                                              : adapter == "sglang" ? log_kv.sglang
                                                                    : std::nullopt;
  if (log_capacity) {
    agg["server_metrics"].as_object()["kv_cache"].as_object()["gpu_total_tokens"] = *log_capacity;
  }
  // As InferenceX: server_metrics.kv_cache.gpu_total_tokens.
  agg["kv_cache_pool_tokens"] = agg["server_metrics"].at("kv_cache").at("gpu_total_tokens");
  if (!warnings.empty()) agg["warnings"] = std::move(warnings);  // InferenceX omits it empty
  return RoundFloats(agg).as_object();
}

StatusOr<AgenticArtifacts> WriteAgenticResult(const std::string& out_dir,
                                              const recipe::Point& point,
                                              const std::string& runner_node,
                                              const LoadOutcome& load,
                                              const std::string& engine_log_path) {
  if (!load.completed) {
    return Status::FailedPrecondition("point " + point.point_id +
                                      ": no completed load run to write InferenceX's agentic "
                                      "result from");
  }
  if (load.requests_path.empty()) {
    return Status::FailedPrecondition("point " + point.point_id +
                                      ": the load run wrote no per-request records, which "
                                      "InferenceX's agentic result is computed from");
  }
  // Wall-clock records move to Unix ns by the run's anchor; a simulated engine's records
  // are in its simulated clock (docs/metrics.md "Simulated time"), which has no Unix
  // time, so they keep their stamps (every duration is still right).
  ClockAnchor anchor;
  const json::value* clock = Path(load.summary, {"servebench", "run", "clock"});
  if (clock == nullptr || !clock->is_string() || clock->as_string() != "simulated") {
    anchor = {IntAt(load.summary, {"servebench", "run", "anchor_realtime_ns"}),
              IntAt(load.summary, {"servebench", "run", "anchor_monotonic_ns"})};
  }
  SB_ASSIGN_OR_RETURN(std::vector<AgenticRequest> requests,
                      ReadAgenticRequests(load.requests_path, anchor));
  const json::object aiperf = AiperfAggregateJson(requests, load);
  // The engine's /metrics over the measured phase, as AIPerf exports its scrapes.
  std::optional<json::object> server_export;
  if (!load.server_metrics_path.empty()) {
    SB_ASSIGN_OR_RETURN(std::vector<metrics::TimedScrape> scrapes,
                        metrics::ReadScrapesJsonl(load.server_metrics_path));
    const json::value* url = Path(load.summary, {"servebench", "run", "metrics_url"});
    server_export = ServerMetricsExportJson(
        scrapes, url != nullptr && url->is_string() ? std::string(url->as_string()) : "");
  }
  // The engine's logs, each read once (its first 64 MiB): for the KV capacity and for
  // the copies beside the artifacts.
  const std::vector<std::string> engine_logs = EngineLogFiles(engine_log_path);
  std::vector<std::string> log_heads;
  for (const std::string& log : engine_logs) log_heads.push_back(EngineLogHead(log));
  SB_ASSIGN_OR_RETURN(
      json::object aggregate,
      AgenticAggregateJson(requests, aiperf, point, server_export ? &*server_export : nullptr,
                           KvCapacityOfLogs(log_heads)));

  const std::string name = AgenticResultName(point, runner_node);
  AgenticArtifacts out;
  out.aggregate_path = out_dir + "/inferencex/" + name + ".json";
  out.aiperf_dir = out_dir + "/inferencex/agentic_" + name + "/aiperf_artifacts";
  std::error_code ec;
  std::filesystem::create_directories(out.aiperf_dir, ec);
  if (ec) return Status::Internal("cannot create " + out.aiperf_dir + ": " + ec.message());
  std::string lines;
  for (const AgenticRequest& r : requests) {
    lines += json::serialize(AiperfRecordJson(r));
    lines += '\n';
  }
  SB_RETURN_IF_ERROR(WriteFileAtomically(out.aiperf_dir + "/profile_export.jsonl", lines));
  SB_RETURN_IF_ERROR(WriteFileAtomically(out.aiperf_dir + "/profile_export_aiperf.json",
                                         json::serialize(aiperf) + "\n"));
  if (server_export) {
    SB_RETURN_IF_ERROR(WriteFileAtomically(out.aiperf_dir + "/server_metrics_export.json",
                                           json::serialize(*server_export) + "\n"));
  }
  // The engine's log beside the artifacts, where InferenceX's aggregator looks for it
  // (find_server_log_paths: server.log, else watchtower-*.out, one per process), so it
  // reads the same KV capacity; its first 64 MiB, all InferenceX reads.
  const std::string result_dir = std::filesystem::path(out.aiperf_dir).parent_path().string();
  for (size_t i = 0; i < engine_logs.size(); ++i) {
    const std::string name =
        engine_logs.size() == 1
            ? "server.log"
            : "watchtower-" + std::filesystem::path(engine_logs[i]).filename().string() + ".out";
    SB_RETURN_IF_ERROR(WriteFileAtomically(result_dir + "/" + name, log_heads[i]));
  }
  SB_RETURN_IF_ERROR(WriteFileAtomically(out.aggregate_path, json::serialize(aggregate) + "\n"));
  return out;
}

}  // namespace servebench::run
