// The load flags of `servebench bench` (vllm bench serve's names and meanings, then
// servebench's own), defined once for every command that runs load against a running
// server: `bench` and `search`. AddBenchFlags declares them on a CLI11 app;
// FinishBenchFlags turns what was parsed into client::BenchSettings, refusing values
// that are not allowed before any socket is opened.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/power_flags.h"
#include "client/client_settings.h"
#include "common/status.h"

namespace servebench::cli {

struct BenchFlags {
  client::BenchSettings settings;  // complete after FinishBenchFlags
  // ---- Output (each command decides what it writes) ----
  bool save_result = false;
  std::string result_dir, result_filename, result_format = "vllm", requests_jsonl;
  std::string server_metrics_jsonl;

  // ---- Raw values FinishBenchFlags reads ----
  std::string host = "127.0.0.1", request_rate = "inf", range_semantics = "vllm", arrival = "gamma",
              event_timestamps = "kernel";
  int port = 8000;
  bool no_scrape = false, no_continuous = false, no_progress = false;
  std::vector<std::string> percentile_metrics, metric_percentiles, goodput, metadata, headers;
  std::string ramp_strategy;          // "", linear or exponential
  std::vector<std::string> stages;    // RATE@SECONDS each
  std::string sequence_distribution;  // ISL|SD,OSL|SD:WEIGHT;... (length_mixture.h)
  CLI::Option* grace_flag = nullptr;
  CLI::Option* ramp_rps[2] = {nullptr, nullptr};                    // need --ramp-up-strategy
  CLI::Option* saturation_tuning[3] = {nullptr, nullptr, nullptr};  // need --detect-saturation
  CLI::Option* error_min_flag = nullptr;                            // needs --max-error-rate
  std::vector<CLI::Option*> prefix_pool_flags;  // need --dataset-name prefix_repetition
  CLI::Option* base_url_flag = nullptr;
  CLI::Option* num_prompts_flag = nullptr;
  CLI::Option* duration_flag = nullptr;
  PowerFlags power;  // GPU power (docs/power.md); resolved into settings.telemetry
};

// Declares every load flag on `app`, bound to `flags` (which must outlive parsing).
void AddBenchFlags(CLI::App& app, BenchFlags* flags);

// Resolves the parsed flags into flags->settings and checks them (client::Validate
// and the output folders). InvalidArgument names the flag, the value and the rule.
Status FinishBenchFlags(BenchFlags* flags);

}  // namespace servebench::cli
