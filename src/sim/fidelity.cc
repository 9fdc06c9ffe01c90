#include "sim/fidelity.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "sim/predict.h"
#include "sim/resolved_config.h"

namespace servebench::sim {

// Defined in the generated catalogue_data.cc (CMake embeds data/sim/*.yaml).
extern const char* const kBuiltInPublishedPointsYaml;

namespace {

double MedianAbs(std::vector<double> v) {
  if (v.empty()) return 0;
  for (double& x : v) x = std::fabs(x);
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string Error(const std::optional<double>& e) {
  return e ? fmt::format("{:+.0f}%", *e * 100) : "-";
}

}  // namespace

StatusOr<std::vector<PublishedPoint>> ParsePublishedPoints(const std::string& yaml) {
  std::vector<PublishedPoint> out;
  try {
    YAML::Node doc = YAML::Load(yaml);
    if (!doc["points"] || !doc["points"].IsSequence())
      return Status::InvalidArgument("published points: top-level list 'points' missing");
    for (const YAML::Node& n : doc["points"]) {
      PublishedPoint p;
      p.id = n["id"].as<std::string>();
      auto need = [&](const char* key) -> Status {
        if (!n[key])
          return Status::InvalidArgument(fmt::format("point {}: missing '{}'", p.id, key));
        return Status::Ok();
      };
      for (const char* key :
           {"source", "model", "hardware", "engine", "isl", "osl", "concurrency", "measured"}) {
        SB_RETURN_IF_ERROR(need(key));
      }
      p.source = n["source"].as<std::string>();
      p.model = n["model"].as<std::string>();
      p.hardware = n["hardware"].as<std::string>();
      p.engine = n["engine"].as<std::string>();
      p.tensor_parallel = n["tensor_parallel"].as<int>(1);
      p.data_parallel = n["data_parallel"].as<int>(1);
      p.expert_parallel = n["expert_parallel"].as<bool>(false);
      p.precision = n["precision"].as<std::string>("");
      p.kv_cache_dtype = n["kv_cache_dtype"].as<std::string>("auto");
      p.max_num_seqs = n["max_num_seqs"].as<int>(256);
      p.max_num_batched_tokens = n["max_num_batched_tokens"].as<int>(8192);
      p.isl = n["isl"].as<int>();
      p.osl = n["osl"].as<int>();
      p.concurrency = n["concurrency"].as<int>();
      p.num_prompts = n["num_prompts"].as<int>(0);
      const YAML::Node m = n["measured"];
      if (m["median_ttft_ms"]) p.median_ttft_ms = m["median_ttft_ms"].as<double>();
      if (m["median_tpot_ms"]) p.median_tpot_ms = m["median_tpot_ms"].as<double>();
      if (m["output_tok_s_per_gpu"])
        p.output_tok_s_per_gpu = m["output_tok_s_per_gpu"].as<double>();
      out.push_back(std::move(p));
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(fmt::format("published points: {}", e.what()));
  }
  return out;
}

StatusOr<std::vector<PublishedPoint>> BuiltInPublishedPoints() {
  return ParsePublishedPoints(kBuiltInPublishedPointsYaml);
}

StatusOr<FidelityReport> EvaluateFidelity(const Catalogue& catalogue,
                                          const std::vector<PublishedPoint>& points) {
  FidelityReport report;
  std::vector<double> ttft, tpot, tput;
  for (const PublishedPoint& p : points) {
    SimSettings s;
    s.model = p.model;
    s.hardware = p.hardware;
    s.engine_profile = p.engine;
    s.tensor_parallel_size = p.tensor_parallel;
    s.data_parallel_size = p.data_parallel;
    s.enable_expert_parallel = p.expert_parallel;
    s.precision = p.precision;
    s.kv_cache_dtype = p.kv_cache_dtype;
    s.max_num_seqs = p.max_num_seqs;
    s.max_num_batched_tokens = p.max_num_batched_tokens;
    auto config = Resolve(s, catalogue);
    if (!config.ok()) return config.status().WithContext("published point " + p.id);
    PredictLoad load;
    load.concurrency = p.concurrency;
    load.isl = p.isl;
    load.osl = p.osl;
    load.num_requests = p.num_prompts > 0 ? p.num_prompts : 10 * p.concurrency;
    auto predicted = PredictClosedLoop(*config->perf, config->scheduler, config->engine, load);
    if (!predicted.ok()) return predicted.status().WithContext("published point " + p.id);
    FidelityRow row;
    row.point = p;
    row.median_ttft_ms = predicted->median_ttft_ms;
    row.median_tpot_ms = predicted->median_tpot_ms;
    row.output_tok_s_per_gpu = predicted->output_tok_s_per_gpu;
    if (p.median_ttft_ms) {
      row.ttft_error = row.median_ttft_ms / *p.median_ttft_ms - 1;
      ttft.push_back(*row.ttft_error);
    }
    if (p.median_tpot_ms) {
      row.tpot_error = row.median_tpot_ms / *p.median_tpot_ms - 1;
      tpot.push_back(*row.tpot_error);
    }
    if (p.output_tok_s_per_gpu) {
      row.throughput_error = row.output_tok_s_per_gpu / *p.output_tok_s_per_gpu - 1;
      tput.push_back(*row.throughput_error);
    }
    report.rows.push_back(std::move(row));
  }
  report.median_abs_ttft_error = MedianAbs(ttft);
  report.median_abs_tpot_error = MedianAbs(tpot);
  report.median_abs_throughput_error = MedianAbs(tput);
  return report;
}

std::string FidelityTable(const FidelityReport& report) {
  std::string out =
      "| Point | Median TPOT ms measured → predicted (error) | Output tok/s/GPU measured → "
      "predicted (error) | Median TTFT ms measured → predicted (error) |\n"
      "|---|---|---|---|\n";
  auto cell = [](const std::optional<double>& measured, double predicted,
                 const std::optional<double>& error, const char* format) {
    if (!measured) return fmt::format("– → {}", fmt::format(fmt::runtime(format), predicted));
    return fmt::format("{} → {} ({})", fmt::format(fmt::runtime(format), *measured),
                       fmt::format(fmt::runtime(format), predicted), Error(error));
  };
  for (const FidelityRow& r : report.rows) {
    fmt::format_to(
        std::back_inserter(out), "| {} | {} | {} | {} |\n", r.point.id,
        cell(r.point.median_tpot_ms, r.median_tpot_ms, r.tpot_error, "{:.1f}"),
        cell(r.point.output_tok_s_per_gpu, r.output_tok_s_per_gpu, r.throughput_error, "{:.1f}"),
        cell(r.point.median_ttft_ms, r.median_ttft_ms, r.ttft_error, "{:.0f}"));
  }
  // Each median is over the points that published that metric (the TensorRT-LLM
  // blog gives no TTFT), so each says how many it is over.
  size_t n_tpot = 0, n_tput = 0, n_ttft = 0;
  for (const FidelityRow& r : report.rows) {
    n_tpot += r.tpot_error.has_value();
    n_tput += r.throughput_error.has_value();
    n_ttft += r.ttft_error.has_value();
  }
  fmt::format_to(std::back_inserter(out),
                 "\nMedian |error| over the {} points: TPOT {:.1f}% (over {}), output tok/s/GPU "
                 "{:.1f}% (over {}), TTFT {:.1f}% (over the {} that publish it)\n",
                 report.rows.size(), report.median_abs_tpot_error * 100, n_tpot,
                 report.median_abs_throughput_error * 100, n_tput,
                 report.median_abs_ttft_error * 100, n_ttft);
  return out;
}

}  // namespace servebench::sim
