#include "cli/bench_flags.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "cli/flag_checks.h"
#include "client/length_mixture.h"
#include "client/prefix_pool.h"

namespace servebench::cli {
namespace {

std::vector<std::string> SplitCommas(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const std::string& s : in) {
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (!item.empty()) out.push_back(item);
    }
  }
  return out;
}

// "KEY=VALUE" (or KEY:VALUE for --goodput) into a pair; false when malformed.
bool SplitPair(const std::string& s, char sep, std::pair<std::string, std::string>* out) {
  size_t at = s.find(sep);
  if (at == std::string::npos || at == 0) return false;
  *out = {s.substr(0, at), s.substr(at + 1)};
  return true;
}

Status Bad(std::string message) { return Status::InvalidArgument(std::move(message)); }

}  // namespace

void AddBenchFlags(CLI::App& app, BenchFlags* f) {
  client::BenchSettings& s = f->settings;
  app.add_option("--backend", s.backend, "openai (completions) or openai-chat; recorded");
  f->base_url_flag =
      app.add_option("--base-url", s.base_url, "server URL http(s)://host:port[/prefix]")
          ->default_str("");
  auto* host_flag = app.add_option("--host", f->host, "server host (without --base-url)");
  auto* port_flag = app.add_option("--port", f->port, "server port 1-65535 (without --base-url)");
  f->base_url_flag->excludes(host_flag);
  f->base_url_flag->excludes(port_flag);
  app.add_option("--endpoint", s.endpoint,
                 "API path (default: /v1/chat/completions for --backend openai-chat, else "
                 "/v1/completions)");
  app.add_option("--model", s.model, "model id")->required();
  app.add_option("--served-model-name", s.served_model_name, "name sent in requests");
  app.add_option("--tokenizer", s.tokenizer_id, "recorded as tokenizer_id");
  app.add_option("--label", s.label);
  app.add_option("--dataset-name", s.dataset_name,
                 client::DatasetNamesText() + " (docs/bench.md, docs/agentic.md)");
  app.add_option("--dataset-path", s.dataset_path,
                 "dataset file; a trace file or folder; speed_bench: the prepared folder "
                 "(<subset>.jsonl in it) or the file");
  app.add_flag("--fixed-schedule", s.fixed_schedule,
               "trace replay: send on the recorded timestamps even with --max-concurrency "
               "(which then caps requests in flight)");
  app.add_option("--trace-speedup", s.trace_speedup,
                 "trace replay: recorded gaps divided by this (2 = twice as fast)")
      ->capture_default_str();
  app.add_option("--cache-bust", s.cache_bust,
                 "chat trace replay: none | first_turn_prefix ([rid:<12 hex>] and a blank line "
                 "before each tree's user messages, fresh per run)")
      ->capture_default_str();
  app.add_option("--assistant-turns", s.assistant_turns,
                 "dag_jsonl / multi_turn replay: pre-canned (the recorded assistant text in "
                 "the history) | live (the server's replies to the earlier turns, as vLLM "
                 "multi_turn and AIPerf dag_jsonl send them)")
      ->capture_default_str();
  app.add_option("--isl-block-size", s.trace_block_tokens,
                 "mooncake_trace / bailian_trace tokens per hash id; 0 = the format's (512 / 16)")
      ->capture_default_str();
  app.add_option("--engine-block-size", s.engine_block_tokens,
                 "trace replay and prefix_repetition: the engine's KV block (tokens), for the "
                 "expected hit fraction")
      ->capture_default_str();
  app.add_option("--engine-kv-blocks", s.engine_kv_blocks,
                 "trace replay: the engine's KV pool in blocks, for the LRU expected fraction; "
                 "0 = infinite cache only")
      ->capture_default_str();
  app.add_option("--prefix-hit-tolerance", s.prefix_hit_tolerance,
                 "trace replay and prefix_repetition: server vs expected hit rate gap "
                 "(fraction) that makes the run invalid")
      ->capture_default_str();
  app.add_option("--trace-idle-gap-cap-seconds", s.trace_idle_gap_cap_s,
                 "closed-loop lanes: a tree idle this long (s, the run's clock) has its next "
                 "turn sent now; 0 = no cap")
      ->capture_default_str();
  app.add_option("--system-idle-gap-cap-seconds", s.system_idle_gap_cap_s,
                 "closed-loop lanes: with nothing in flight anywhere, the next turn goes "
                 "within this (s); 0 = no cap")
      ->capture_default_str();
  app.add_option("--trajectory-start-min-ratio", s.trajectory_start_min_ratio,
                 "closed-loop lanes: each lane's first tree starts at a turn drawn from this "
                 "fraction of its turns (default: turn 0)");
  app.add_option("--trajectory-start-max-ratio", s.trajectory_start_max_ratio,
                 "closed-loop lanes: ... up to this fraction (at most n - 2)");
  app.add_option("--warmup-requests-per-lane", s.warmup_requests_per_lane,
                 "closed-loop lanes: one-token warm-up turns per lane after the snapshot "
                 "primer, not measured")
      ->capture_default_str();
  app.add_option("--random-input-len", s.random_input_len);
  app.add_option("--random-output-len", s.random_output_len);
  app.add_option("--random-range-ratio", s.random_range_ratio);
  app.add_option("--random-prefix-len", s.random_prefix_len);
  app.add_option("--custom-output-len", s.custom_output_len);
  app.add_option("--speed-bench-dataset-subset", s.speed_bench_subset,
                 "speed_bench: qualitative (acceptance, 11 categories) or throughput_1k, _2k, "
                 "_8k, _16k, _32k")
      ->capture_default_str();
  app.add_option("--speed-bench-category", s.speed_bench_category,
                 "speed_bench: only this category (default: all)");
  app.add_option("--speed-bench-output-len", s.speed_bench_output_len,
                 "speed_bench: max_tokens of each request")
      ->capture_default_str();
  app.add_option("--spec-bench-category", s.spec_bench_category,
                 "spec_bench: only this category (default: all)");
  app.add_option("--spec-bench-output-len", s.spec_bench_output_len,
                 "spec_bench: max_tokens of each request")
      ->capture_default_str();
  // vLLM's prefix_repetition flags and defaults, then servebench's reuse ratio.
  client::PrefixPoolSettings& pool = s.prefix_pool;
  f->prefix_pool_flags = {
      app.add_option("--prefix-repetition-prefix-len", pool.prefix_len,
                     "prefix_repetition: tokens of each prefix")
          ->capture_default_str(),
      app.add_option("--prefix-repetition-suffix-len", pool.suffix_len,
                     "prefix_repetition: fresh tokens after the prefix (>= 1)")
          ->capture_default_str(),
      app.add_option("--prefix-repetition-num-prefixes", pool.num_prefixes,
                     "prefix_repetition: prefixes in the pool")
          ->capture_default_str(),
      app.add_option("--prefix-repetition-output-len", pool.output_len,
                     "prefix_repetition: output tokens per request")
          ->capture_default_str(),
      app.add_option("--prefix-repetition-reuse-ratio", pool.reuse_ratio,
                     "prefix_repetition: share of measured prompts whose prefix is from the "
                     "(primed) pool, the rest have their own; 0..1")
          ->capture_default_str()};
  f->num_prompts_flag = app.add_option(
      "--num-prompts", s.num_prompts,
      "measured prompts; with --duration the most requests the run may send (each once)");
  app.add_option("--request-rate", f->request_rate, "requests/s or inf");
  app.add_option("--burstiness", s.burstiness, "gamma shape; 1 = Poisson");
  app.add_option("--ramp-up-strategy", f->ramp_strategy,
                 "linear | exponential: the rate ramps by request index (with the two below)");
  f->ramp_rps[0] =
      app.add_option("--ramp-up-start-rps", s.ramp_start_rps, "ramp: rate of the first request");
  f->ramp_rps[1] =
      app.add_option("--ramp-up-end-rps", s.ramp_end_rps, "ramp: rate of the last request");
  app.add_option("--concurrency-ramp-duration", s.concurrency_ramp_s,
                 "closed loop: slots rise from 1 to --max-concurrency over S seconds "
                 "(AIPerf's name)");
  app.add_option("--stage", f->stages,
                 "RATE@SECONDS or concurrency=C@SECONDS, repeatable: back-to-back stages, each "
                 "summarised");
  app.add_option("--max-concurrency", s.max_concurrency, "0 = unlimited");
  app.add_flag("--ignore-eos", s.ignore_eos);
  app.add_flag("--tool-call-workload", s.tool_call_workload,
               "chat: every request carries one function tool and --tool-choice; returned calls "
               "are counted by the JSON validity of their arguments");
  app.add_option("--tool-choice", s.tool_choice,
                 "with --tool-call-workload: required, auto or none (OpenAI's tool_choice)")
      ->capture_default_str();
  app.add_option("--num-warmups", s.num_warmups);
  app.add_option("--percentile-metrics", f->percentile_metrics, "ttft,tpot,itl,e2el")
      ->default_str("ttft,tpot,itl");
  app.add_option("--metric-percentiles", f->metric_percentiles, "e.g. 90,99,99.9")
      ->default_str("99");
  app.add_option("--goodput", f->goodput, "SLOs KEY:VALUE in ms (ttft, tpot, e2el)");
  app.add_flag("--save-result", f->save_result);
  app.add_flag("--save-detailed", s.save_detailed, "per-request arrays + a per-request JSONL");
  app.add_option("--result-dir", f->result_dir);
  app.add_option("--result-filename", f->result_filename);
  app.add_option("--metadata", f->metadata, "KEY=VALUE pairs added to the result");
  app.add_option("--seed", s.seed);
  app.add_option("--temperature", s.temperature);
  app.add_option("--extra-body", s.extra_body_json, "JSON object merged into each request");
  app.add_option("--header", f->headers, "KEY=VALUE HTTP headers");
  // servebench's own flags.
  app.add_option("--range-ratio-semantics", f->range_semantics,
                 "vllm: [L(1-r), L(1+r)]; inferencex: [L*r, L]");
  app.add_option("--result-format", f->result_format,
                 "vllm (upstream keys) or inferencex (the InferenceX fork's key set)");
  app.add_option("--arrival", f->arrival, "gamma (poisson when burstiness 1) | constant");
  app.add_option("--num-gpus", s.gpus.num_gpus, "GPUs behind the server (per-GPU throughput)");
  app.add_option("--prefill-gpus", s.gpus.prefill_gpus, "multinode: prefill GPUs");
  app.add_option("--decode-gpus", s.gpus.decode_gpus, "multinode: decode GPUs");
  app.add_option("--metrics-url", s.metrics_url,
                 "Prometheus endpoint (default base URL + /metrics)");
  app.add_flag("--no-metrics-scrape", f->no_scrape);
  app.add_option("--metrics-interval-s", s.metrics_interval_s,
                 "seconds between /metrics scrapes in the measured phase (KV usage over time, "
                 "servebench.kv_usage); 0 = only before and after it")
      ->capture_default_str();
  app.add_option("--server-metrics-jsonl", f->server_metrics_jsonl,
                 "write the measured phase's /metrics scrapes here (one JSON line each)");
  app.add_flag("--reset-prefix-cache", s.reset_prefix_cache,
               "POST /reset_prefix_cache after the warm-ups, before the measured phase (a "
               "server without it: a warning)");
  app.add_flag("--profile", s.profile,
               "POST /start_profile before the measured phase and /stop_profile after it (the "
               "server needs its profiler dir, e.g. VLLM_TORCH_PROFILER_DIR; else a warning)");
  app.add_flag("--spec-decoding", s.spec_decoding,
               "the server runs speculative decoding (validity)");
  app.add_option("--request-timeout", s.request_timeout_s, "per-request deadline, s (0 = none)");
  app.add_option("--num-workers", s.num_workers, "event-loop threads (0 = auto)");
  f->duration_flag =
      app.add_option("--duration", s.duration_s,
                     "issue requests for S seconds, then stop (0 = sized by --num-prompts)");
  f->grace_flag = app.add_option(
      "--grace-period", s.grace_period_s,
      "with --duration, --stage or a stop rule: seconds requests in flight when issuing "
      "ends may take to finish; those still running are cut, counted as cut_at_end (run "
      "invalid)");
  app.add_option("--max-error-rate", s.stop.max_error_rate,
                 "stop rule: stop issuing once failed/finished exceeds this fraction (0 < x <= "
                 "1), judged from --max-error-rate-min-requests finished requests on");
  f->error_min_flag =
      app.add_option("--max-error-rate-min-requests", s.stop.error_rate_min_requests,
                     "finished requests before --max-error-rate is judged "
                     "(default 20)");
  app.add_flag("--detect-saturation", s.stop.detect_saturation,
               "stop rule: stop issuing once queueing (mean schedule-to-first-token per "
               "window) has grown for --saturation-windows windows to --saturation-factor x "
               "its lowest");
  f->saturation_tuning[0] = app.add_option("--saturation-window", s.stop.saturation_window_s,
                                           "saturation window, s (default 2)");
  f->saturation_tuning[1] = app.add_option("--saturation-windows", s.stop.saturation_windows,
                                           "consecutive growing windows (default 3)");
  f->saturation_tuning[2] = app.add_option("--saturation-factor", s.stop.saturation_factor,
                                           "last window over the lowest (default 2)");
  app.add_option("--sequence-distribution", f->sequence_distribution,
                 "random prompts as an ISL/OSL mixture (AIPerf's format): "
                 "\"ISL|SD,OSL|SD:WEIGHT;...\", e.g. \"64|10,32|8:70;1024,512:30\"");
  app.add_option("--requests-jsonl", f->requests_jsonl, "write per-request records here");
  app.add_flag("--no-continuous-usage", f->no_continuous, "do not ask for per-chunk usage");
  app.add_option("--api-key-env", s.api_key_env,
                 "environment variable holding the API key (must be set; default: "
                 "OPENAI_API_KEY when set); the key is never written anywhere");
  app.add_option("--ssl-ca-cert", s.tls.ca_cert_file,
                 "https: PEM file of CAs to trust besides the system store");
  app.add_flag("--insecure", s.tls.insecure, "https: do not verify the server's certificate");
  app.add_option(
      "--event-timestamps", f->event_timestamps,
      "kernel: the kernel's receive time of each read (plain TCP); read: when the read returned");
  app.add_option("--issue-delay-limit-ms", s.client_issue_delay_limit_ms);
  app.add_option("--server-lag-limit-ms", s.server_lag_limit_ms,
                 "simulated servers: P99 lateness against their own schedule above which the run "
                 "is invalid (server_lagged), simulated ms");
  app.add_option("--sim-time-scale", s.time_scale,
                 "the simulated server's --time-scale: the arrival schedule is sent compressed "
                 "by it (the numbers follow the server's stamps)");
  app.add_flag("--no-progress", f->no_progress);
  AddPowerFlags(app, &f->power, /*idle_default_s=*/0);
}

Status FinishBenchFlags(BenchFlags* f) {
  client::BenchSettings& s = f->settings;
  if (f->base_url_flag->count() == 0) {
    if (f->port < 1 || f->port > 65535)
      return Bad(fmt::format("--port {}: must be 1 .. 65535", f->port));
    const std::string& host = f->host;
    if (host.empty() || host.find_first_of("/ \t@?#") != std::string::npos) {
      return Bad(
          fmt::format("--host '{}': give a host name or address (for a URL use --base-url)", host));
    }
    bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
    s.base_url = ipv6 ? fmt::format("http://[{}]:{}", host, f->port)
                      : fmt::format("http://{}:{}", host, f->port);
  }
  if (f->request_rate == "inf") {
    s.request_rate_per_s = 0;
  } else {
    char* end = nullptr;
    s.request_rate_per_s = std::strtod(f->request_rate.c_str(), &end);
    if (*end != '\0' || s.request_rate_per_s <= 0 || std::isinf(s.request_rate_per_s)) {
      if (!std::isinf(s.request_rate_per_s)) {
        return Bad(fmt::format("--request-rate '{}': a number > 0 or inf", f->request_rate));
      }
      s.request_rate_per_s = 0;
    }
  }
  if (f->range_semantics == "inferencex") {
    s.range_ratio_semantics = client::RangeRatioSemantics::kInferenceX;
  } else if (f->range_semantics != "vllm") {
    return Bad("--range-ratio-semantics '" + f->range_semantics + "': vllm or inferencex");
  }
  if (f->result_format != "vllm" && f->result_format != "inferencex") {
    return Bad("--result-format '" + f->result_format + "': vllm or inferencex");
  }
  if (f->arrival == "constant") {
    s.arrival = client::ArrivalProcess::kConstant;
  } else if (f->arrival == "poisson") {
    s.burstiness = 1.0;
  } else if (f->arrival != "gamma") {
    return Bad("--arrival '" + f->arrival + "': gamma, poisson or constant");
  }
  if (f->ramp_strategy == "linear") {
    s.ramp = client::RampStrategy::kLinear;
  } else if (f->ramp_strategy == "exponential") {
    s.ramp = client::RampStrategy::kExponential;
  } else if (!f->ramp_strategy.empty()) {
    return Bad("--ramp-up-strategy '" + f->ramp_strategy + "': linear or exponential");
  }
  for (const std::string& text : f->stages) {
    client::LoadStage st;
    char* end = nullptr;
    size_t at = text.find('@');
    if (at != std::string::npos) {
      std::string rate = text.substr(0, at), secs = text.substr(at + 1);
      bool rate_ok = false;
      constexpr std::string_view kConc = "concurrency=";
      if (rate.rfind(kConc, 0) == 0) {
        std::string c = rate.substr(kConc.size());
        st.concurrency = std::strtoll(c.c_str(), &end, 10);
        rate_ok = !c.empty() && *end == '\0' && st.concurrency > 0;
      } else {
        st.rate_per_s = std::strtod(rate.c_str(), &end);
        rate_ok = !rate.empty() && *end == '\0';
      }
      st.duration_s = std::strtod(secs.c_str(), &end);
      if (rate_ok && !secs.empty() && *end == '\0') {
        s.stages.push_back(st);
        continue;
      }
    }
    return Bad("--stage '" + text +
               "': RATE@SECONDS or concurrency=C@SECONDS, e.g. 20@60 (20 req/s for 60 s) or "
               "concurrency=8@60");
  }
  bool bounded = s.duration_s > 0 || !s.stages.empty() || s.stop.any();
  if (f->grace_flag->count() > 0 && !bounded) {
    return Bad(
        "--grace-period without --duration, --stage, --max-error-rate or --detect-saturation: "
        "a run sized by --num-prompts waits for every request");
  }
  for (CLI::Option* o : f->ramp_rps) {
    if (o->count() > 0 && s.ramp == client::RampStrategy::kNone) {
      return Bad(o->get_name() + " without --ramp-up-strategy linear|exponential");
    }
  }
  for (CLI::Option* o : f->saturation_tuning) {
    if (o->count() > 0 && !s.stop.detect_saturation) {
      return Bad(o->get_name() + " without --detect-saturation: it tunes that stop rule");
    }
  }
  for (CLI::Option* o : f->prefix_pool_flags) {
    if (o->count() > 0 && s.dataset_name != client::kPrefixPoolDataset) {
      return Bad(o->get_name() +
                 " without --dataset-name prefix_repetition: it shapes that "
                 "dataset's prompts");
    }
  }
  if (f->error_min_flag->count() > 0 && !(s.stop.max_error_rate > 0)) {
    return Bad("--max-error-rate-min-requests without --max-error-rate: it tunes that stop rule");
  }
  if (!f->sequence_distribution.empty()) {
    StatusOr<std::vector<client::SequenceComponent>> mix =
        client::ParseSequenceDistribution(f->sequence_distribution);
    if (!mix.ok()) return mix.status();
    s.sequence_distribution = std::move(*mix);
  }
  if (f->event_timestamps == "read") {
    s.kernel_rx_timestamps = false;
  } else if (f->event_timestamps != "kernel") {
    return Bad("--event-timestamps '" + f->event_timestamps + "': kernel or read");
  }
  std::vector<std::string> pm = SplitCommas(f->percentile_metrics);
  if (!pm.empty()) s.percentile_metrics = pm;
  std::vector<std::string> mp = SplitCommas(f->metric_percentiles);
  if (!mp.empty()) {
    s.metric_percentiles.clear();
    for (const std::string& p : mp) {
      char* end = nullptr;
      double v = std::strtod(p.c_str(), &end);
      if (*end != '\0') return Bad("--metric-percentiles '" + p + "': not a number");
      s.metric_percentiles.push_back(v);
    }
  }
  for (const std::string& g : SplitCommas(f->goodput)) {
    std::pair<std::string, std::string> kv;
    char* end = nullptr;
    double v = 0;
    if (SplitPair(g, ':', &kv)) v = std::strtod(kv.second.c_str(), &end);
    if (end == nullptr || *end != '\0' || v <= 0) {
      return Bad("--goodput '" + g + "': KEY:VALUE with KEY ttft, tpot or e2el and VALUE ms > 0");
    }
    if (kv.first == "ttft")
      s.goodput.ttft_ms = v;
    else if (kv.first == "tpot")
      s.goodput.tpot_ms = v;
    else if (kv.first == "e2el")
      s.goodput.e2el_ms = v;
    else
      return Bad("--goodput '" + g + "': KEY must be ttft, tpot or e2el");
  }
  for (const std::string& m : f->metadata) {
    std::pair<std::string, std::string> kv;
    if (!SplitPair(m, '=', &kv)) return Bad("--metadata '" + m + "': KEY=VALUE");
    s.metadata.push_back(kv);
  }
  for (const std::string& h : f->headers) {
    std::pair<std::string, std::string> kv;
    if (!SplitPair(h, '=', &kv)) return Bad("--header '" + h + "': KEY=VALUE");
    s.headers.push_back(kv);
  }
  StatusOr<telemetry::TelemetrySettings> power = ResolvePowerFlags(f->power);
  if (!power.ok()) return power.status();
  s.telemetry = *power;
  s.idle_power_s = f->power.idle_power_s;
  s.scrape_metrics = !f->no_scrape;
  s.continuous_usage_stats = !f->no_continuous;
  s.progress = !f->no_progress;
  s.keep_generated_text = s.save_detailed;
  s.requests_jsonl_path = f->requests_jsonl;
  s.server_metrics_jsonl_path = f->server_metrics_jsonl;

  // Where results go, before the run: a folder missing at the end would lose them.
  bool saving = f->save_result || s.save_detailed || !f->result_filename.empty();
  if (saving && !f->result_dir.empty() && !std::filesystem::is_directory(f->result_dir)) {
    return Bad("--result-dir " + f->result_dir +
               ": no such folder; create it first so the result is not lost after the run");
  }
  if (saving) {
    SB_RETURN_IF_ERROR(CheckOutputFile(
        "--result-filename", (std::filesystem::path(f->result_dir.empty() ? "." : f->result_dir) /
                              (f->result_filename.empty() ? "x" : f->result_filename))
                                 .string()));
  }
  SB_RETURN_IF_ERROR(CheckOutputFile("--requests-jsonl", f->requests_jsonl));
  SB_RETURN_IF_ERROR(CheckOutputFile("--server-metrics-jsonl", f->server_metrics_jsonl));
  if (!f->server_metrics_jsonl.empty() && (f->no_scrape || s.metrics_interval_s == 0))
    return Bad("--server-metrics-jsonl " + f->server_metrics_jsonl +
               ": nothing to write with --no-metrics-scrape or --metrics-interval-s 0");
  if (f->duration_flag->count() > 0 && f->num_prompts_flag->count() == 0 &&
      s.request_rate_per_s > 0) {
    s.num_prompts = client::PromptsForDuration(s);
  }
  return client::Validate(s);
}

}  // namespace servebench::cli
