// servebench bench: one load run against a running server. Takes the common
// `vllm bench serve` flags with the same meanings, so a script switches by changing
// one word; servebench's own flags are listed after them in --help.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "cli/command.h"
#include "cli/command_line.h"
#include "cli/flag_checks.h"
#include "client/client.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "common/log.h"

namespace servebench::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int) { g_interrupted.store(true); }

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

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "servebench bench: %s\n", message.c_str());
  return code;
}

int RunBenchCommand(int argc, char** argv) {
  client::BenchSettings s;
  CLI::App app{
      "servebench bench: one load run against a running OpenAI-compatible server.\n"
      "Flags keep `vllm bench serve`'s names and meanings."};
  app.option_defaults()->always_capture_default();
  std::string host = "127.0.0.1", request_rate = "inf", range_semantics = "vllm",
              result_format = "vllm", arrival = "gamma", event_timestamps = "kernel", result_dir,
              result_filename, requests_jsonl;
  int port = 8000;
  bool save_result = false, no_scrape = false, no_continuous = false, no_progress = false;
  std::vector<std::string> percentile_metrics, metric_percentiles, goodput, metadata, headers;
  app.add_option("--backend", s.backend, "openai (completions) or openai-chat; recorded");
  auto* base_url_flag =
      app.add_option("--base-url", s.base_url, "server URL http(s)://host:port[/prefix]")
          ->default_str("");
  auto* host_flag = app.add_option("--host", host, "server host (without --base-url)");
  auto* port_flag = app.add_option("--port", port, "server port 1-65535 (without --base-url)");
  base_url_flag->excludes(host_flag);
  base_url_flag->excludes(port_flag);
  app.add_option("--endpoint", s.endpoint);
  app.add_option("--model", s.model, "model id")->required();
  app.add_option("--served-model-name", s.served_model_name, "name sent in requests");
  app.add_option("--tokenizer", s.tokenizer_id, "recorded as tokenizer_id");
  app.add_option("--label", s.label);
  app.add_option("--dataset-name", s.dataset_name, "random | custom | sharegpt");
  app.add_option("--dataset-path", s.dataset_path);
  app.add_option("--random-input-len", s.random_input_len);
  app.add_option("--random-output-len", s.random_output_len);
  app.add_option("--random-range-ratio", s.random_range_ratio);
  app.add_option("--random-prefix-len", s.random_prefix_len);
  app.add_option("--custom-output-len", s.custom_output_len);
  app.add_option("--num-prompts", s.num_prompts);
  app.add_option("--request-rate", request_rate, "requests/s or inf");
  app.add_option("--burstiness", s.burstiness, "gamma shape; 1 = Poisson");
  app.add_option("--max-concurrency", s.max_concurrency, "0 = unlimited");
  app.add_flag("--ignore-eos", s.ignore_eos);
  app.add_option("--num-warmups", s.num_warmups);
  app.add_option("--percentile-metrics", percentile_metrics, "ttft,tpot,itl,e2el")
      ->default_str("ttft,tpot,itl");
  app.add_option("--metric-percentiles", metric_percentiles, "e.g. 90,99,99.9")->default_str("99");
  app.add_option("--goodput", goodput, "SLOs KEY:VALUE in ms (ttft, tpot, e2el)");
  app.add_flag("--save-result", save_result);
  app.add_flag("--save-detailed", s.save_detailed, "per-request arrays + a per-request JSONL");
  app.add_option("--result-dir", result_dir);
  app.add_option("--result-filename", result_filename);
  app.add_option("--metadata", metadata, "KEY=VALUE pairs added to the result");
  app.add_option("--seed", s.seed);
  app.add_option("--temperature", s.temperature);
  app.add_option("--extra-body", s.extra_body_json, "JSON object merged into each request");
  app.add_option("--header", headers, "KEY=VALUE HTTP headers");
  // servebench's own flags.
  app.add_option("--range-ratio-semantics", range_semantics,
                 "vllm: [L(1-r), L(1+r)]; inferencex: [L*r, L]");
  app.add_option("--result-format", result_format,
                 "vllm (upstream keys) or inferencex (the InferenceX fork's key set)");
  app.add_option("--arrival", arrival, "gamma (poisson when burstiness 1) | constant");
  app.add_option("--num-gpus", s.gpus.num_gpus, "GPUs behind the server (per-GPU throughput)");
  app.add_option("--prefill-gpus", s.gpus.prefill_gpus, "multinode: prefill GPUs");
  app.add_option("--decode-gpus", s.gpus.decode_gpus, "multinode: decode GPUs");
  app.add_option("--metrics-url", s.metrics_url,
                 "Prometheus endpoint (default base URL + /metrics)");
  app.add_flag("--no-metrics-scrape", no_scrape);
  app.add_flag("--spec-decoding", s.spec_decoding,
               "the server runs speculative decoding (validity)");
  app.add_option("--request-timeout", s.request_timeout_s, "per-request deadline, s (0 = none)");
  app.add_option("--num-workers", s.num_workers, "event-loop threads (0 = auto)");
  app.add_option("--requests-jsonl", requests_jsonl, "write per-request records here");
  app.add_flag("--no-continuous-usage", no_continuous, "do not ask for per-chunk usage");
  app.add_option("--api-key-env", s.api_key_env,
                 "environment variable holding the API key (must be set; default: "
                 "OPENAI_API_KEY when set); the key is never written anywhere");
  app.add_option("--ssl-ca-cert", s.tls.ca_cert_file,
                 "https: PEM file of CAs to trust besides the system store");
  app.add_flag("--insecure", s.tls.insecure, "https: do not verify the server's certificate");
  app.add_option(
      "--event-timestamps", event_timestamps,
      "kernel: the kernel's receive time of each read (plain TCP); read: when the read returned");
  app.add_option("--issue-delay-limit-ms", s.client_issue_delay_limit_ms);
  app.add_flag("--no-progress", no_progress);
  if (auto done = ParseCommandLine(app, argc, argv)) return *done;

  if (base_url_flag->count() == 0) {
    if (port < 1 || port > 65535) {
      return Fail(kExitInvalidInput, fmt::format("--port {}: must be 1 .. 65535", port));
    }
    if (host.empty() || host.find_first_of("/ \t@?#") != std::string::npos) {
      return Fail(
          kExitInvalidInput,
          fmt::format("--host '{}': give a host name or address (for a URL use --base-url)", host));
    }
    bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
    s.base_url =
        ipv6 ? fmt::format("http://[{}]:{}", host, port) : fmt::format("http://{}:{}", host, port);
  }
  if (request_rate == "inf") {
    s.request_rate_per_s = 0;
  } else {
    char* end = nullptr;
    s.request_rate_per_s = std::strtod(request_rate.c_str(), &end);
    if (*end != '\0' || s.request_rate_per_s <= 0 || std::isinf(s.request_rate_per_s)) {
      if (!std::isinf(s.request_rate_per_s)) {
        return Fail(kExitInvalidInput,
                    fmt::format("--request-rate '{}': a number > 0 or inf", request_rate));
      }
      s.request_rate_per_s = 0;
    }
  }
  if (range_semantics == "inferencex") {
    s.range_ratio_semantics = client::RangeRatioSemantics::kInferenceX;
  } else if (range_semantics != "vllm") {
    return Fail(kExitInvalidInput,
                "--range-ratio-semantics '" + range_semantics + "': vllm or inferencex");
  }
  if (result_format != "vllm" && result_format != "inferencex") {
    return Fail(kExitInvalidInput, "--result-format '" + result_format + "': vllm or inferencex");
  }
  if (arrival == "constant") {
    s.arrival = client::ArrivalProcess::kConstant;
  } else if (arrival == "poisson") {
    s.burstiness = 1.0;
  } else if (arrival != "gamma") {
    return Fail(kExitInvalidInput, "--arrival '" + arrival + "': gamma, poisson or constant");
  }
  if (event_timestamps == "read") {
    s.kernel_rx_timestamps = false;
  } else if (event_timestamps != "kernel") {
    return Fail(kExitInvalidInput, "--event-timestamps '" + event_timestamps + "': kernel or read");
  }
  std::vector<std::string> pm = SplitCommas(percentile_metrics);
  if (!pm.empty()) s.percentile_metrics = pm;
  std::vector<std::string> mp = SplitCommas(metric_percentiles);
  if (!mp.empty()) {
    s.metric_percentiles.clear();
    for (const std::string& p : mp) {
      char* end = nullptr;
      double v = std::strtod(p.c_str(), &end);
      if (*end != '\0')
        return Fail(kExitInvalidInput, "--metric-percentiles '" + p + "': not a number");
      s.metric_percentiles.push_back(v);
    }
  }
  for (const std::string& g : SplitCommas(goodput)) {
    std::pair<std::string, std::string> kv;
    char* end = nullptr;
    double v = 0;
    if (SplitPair(g, ':', &kv)) v = std::strtod(kv.second.c_str(), &end);
    if (end == nullptr || *end != '\0' || v <= 0) {
      return Fail(kExitInvalidInput,
                  "--goodput '" + g + "': KEY:VALUE with KEY ttft, tpot or e2el and VALUE ms > 0");
    }
    if (kv.first == "ttft")
      s.goodput.ttft_ms = v;
    else if (kv.first == "tpot")
      s.goodput.tpot_ms = v;
    else if (kv.first == "e2el")
      s.goodput.e2el_ms = v;
    else
      return Fail(kExitInvalidInput, "--goodput '" + g + "': KEY must be ttft, tpot or e2el");
  }
  for (const std::string& m : metadata) {
    std::pair<std::string, std::string> kv;
    if (!SplitPair(m, '=', &kv))
      return Fail(kExitInvalidInput, "--metadata '" + m + "': KEY=VALUE");
    s.metadata.push_back(kv);
  }
  for (const std::string& h : headers) {
    std::pair<std::string, std::string> kv;
    if (!SplitPair(h, '=', &kv)) return Fail(kExitInvalidInput, "--header '" + h + "': KEY=VALUE");
    s.headers.push_back(kv);
  }
  s.scrape_metrics = !no_scrape;
  s.continuous_usage_stats = !no_continuous;
  s.progress = !no_progress;
  s.keep_generated_text = s.save_detailed;
  s.requests_jsonl_path = requests_jsonl;

  // Where results go, before the run: a folder missing at the end would lose them.
  bool saving = save_result || s.save_detailed || !result_filename.empty();
  if (saving && !result_dir.empty() && !std::filesystem::is_directory(result_dir)) {
    return Fail(kExitInvalidInput, "--result-dir " + result_dir +
                                       ": no such folder; create it first so the result is not "
                                       "lost after the run");
  }
  for (Status st :
       {saving ? CheckOutputFile("--result-filename",
                                 (std::filesystem::path(result_dir.empty() ? "." : result_dir) /
                                  (result_filename.empty() ? "x" : result_filename))
                                     .string())
               : Status::Ok(),
        CheckOutputFile("--requests-jsonl", requests_jsonl)}) {
    if (!st.ok()) return Fail(kExitInvalidInput, st.message());
  }
  if (Status st = client::Validate(s); !st.ok()) return Fail(kExitInvalidInput, st.message());

  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  StatusOr<client::BenchResult> r = client::RunBench(s, &g_interrupted);
  if (!r.ok()) return Fail(ExitCodeFor(r.status()), r.status().message());
  std::fputs(metrics::FormatSummaryTable(r->summary, r->header).c_str(), stdout);
  std::fflush(stdout);
  if (save_result || s.save_detailed || !result_filename.empty()) {
    std::string name =
        result_filename.empty() ? metrics::DefaultResultFilename(r->header) : result_filename;
    std::filesystem::path path =
        result_dir.empty() ? std::filesystem::path(name) : std::filesystem::path(result_dir) / name;
    boost::json::object out = result_format == "inferencex" ? metrics::BuildInferenceXResultJson(
                                                                  r->summary, r->header, r->records)
                                                            : r->result;
    Status w = WriteFileAtomically(path.string(), boost::json::serialize(out) + "\n");
    if (!w.ok()) return Fail(kExitRunFailed, w.ToString());
    std::fprintf(stderr, "servebench bench: result written to %s\n", path.c_str());
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
