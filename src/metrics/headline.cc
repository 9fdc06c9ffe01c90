#include "metrics/headline.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace servebench::metrics {
namespace {

namespace json = boost::json;

int AtLeastOne(int v) { return std::max(1, v); }

// tp × pp × pcp of one replica.
int ParallelGpus(const ReplicaShape& s) {
  return AtLeastOne(s.tp) * AtLeastOne(s.pp) * AtLeastOne(s.pcp_size);
}

int RoleGpus(int workers, const ReplicaShape& s) {
  return std::max(0, workers) * std::max(ParallelGpus(s), AtLeastOne(s.ep));
}

std::optional<double> Number(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->to_number<double>();
}

int64_t Count(const json::object& o, std::string_view key) {
  std::optional<double> v = Number(o, key);
  return v ? static_cast<int64_t>(*v) : 0;
}

std::optional<double> NestedAcceptanceLength(const json::object& result) {
  const json::value* sb = result.if_contains("servebench");
  if (sb == nullptr || !sb->is_object()) return std::nullopt;
  const json::value* sd = sb->get_object().if_contains("spec_decode");
  if (sd == nullptr || !sd->is_object()) return std::nullopt;
  return Number(sd->get_object(), "acceptance_length");
}

// servebench.stats.<name> of a result, or null.
const json::object* ServebenchStats(const json::object& result, std::string_view name) {
  const json::value* sb = result.if_contains("servebench");
  if (sb == nullptr || !sb->is_object()) return nullptr;
  const json::value* stats = sb->get_object().if_contains("stats");
  if (stats == nullptr || !stats->is_object()) return nullptr;
  const json::value* st = stats->get_object().if_contains(name);
  return st != nullptr && st->is_object() ? &st->get_object() : nullptr;
}

// servebench.<name> of a result when it is an object, or null.
const json::object* ServebenchObject(const json::object& result, std::string_view name) {
  const json::value* sb = result.if_contains("servebench");
  if (sb == nullptr || !sb->is_object()) return nullptr;
  const json::value* p = sb->get_object().if_contains(name);
  return p != nullptr && p->is_object() ? &p->get_object() : nullptr;
}

// servebench.power of a result (telemetry/power_report.h writes it), or null.
const json::object* Power(const json::object& result) { return ServebenchObject(result, "power"); }

}  // namespace

GpuTopology SingleNodeTopology(const ReplicaShape& shape) {
  GpuTopology g;
  g.num_gpus = ParallelGpus(shape);
  return g;
}

GpuTopology MultinodeTopology(int prefill_workers, const ReplicaShape& prefill, int decode_workers,
                              const ReplicaShape& decode) {
  GpuTopology g;
  g.prefill_gpus = RoleGpus(prefill_workers, prefill);
  g.decode_gpus = RoleGpus(decode_workers, decode);
  g.num_gpus = g.prefill_gpus + g.decode_gpus;
  return g;
}

std::optional<PerGpuThroughput> PerGpu(double total, double output, const GpuTopology& g) {
  PerGpuThroughput pg;
  if (g.multinode()) {
    pg.tput_per_gpu = total / (g.prefill_gpus + g.decode_gpus);
    // Aggregated multinode (no decode role): every GPU decodes.
    pg.output_tput_per_gpu = g.decode_gpus > 0 ? output / g.decode_gpus : output / g.prefill_gpus;
    pg.input_tput_per_gpu = (total - output) / g.prefill_gpus;
    return pg;
  }
  if (g.num_gpus <= 0) return std::nullopt;
  pg.tput_per_gpu = total / g.num_gpus;
  pg.output_tput_per_gpu = output / g.num_gpus;
  pg.input_tput_per_gpu = (total - output) / g.num_gpus;
  return pg;
}

std::optional<double> Interactivity(double tpot_ms) {
  if (!(tpot_ms > 0)) return std::nullopt;
  return 1000.0 / tpot_ms;
}

const std::vector<HeadlineMetric>& HeadlineMetrics() {
  static const std::vector<HeadlineMetric> kMetrics = {
      {"request_throughput", &Headline::request_throughput, "req/s",
       "completed requests / duration", 2},
      {"output_throughput", &Headline::output_throughput, "tok/s", "output tokens / duration"},
      {"input_throughput", &Headline::input_throughput, "tok/s", "prompt tokens / duration"},
      {"total_token_throughput", &Headline::total_token_throughput, "tok/s",
       "(prompt + output tokens) / duration"},
      {"tput_per_gpu", &Headline::tput_per_gpu, "tok/s/GPU",
       "total_token_throughput / GPUs; multinode / (P + D) (InferenceX's meaning)"},
      {"output_tput_per_gpu", &Headline::output_tput_per_gpu, "tok/s/GPU",
       "output_throughput / GPUs; multinode / D (/ P when D = 0)"},
      {"input_tput_per_gpu", &Headline::input_tput_per_gpu, "tok/s/GPU",
       "(total - output) / GPUs; multinode / P"},
      {"median_ttft_ms", &Headline::median_ttft_ms, "ms", "median time to first token"},
      {"p99_ttft_ms", &Headline::p99_ttft_ms, "ms", "P99 time to first token"},
      {"median_tpot_ms", &Headline::median_tpot_ms, "ms", "median time per output token", 2},
      {"p99_tpot_ms", &Headline::p99_tpot_ms, "ms", "P99 time per output token", 2},
      {"median_itl_ms", &Headline::median_itl_ms, "ms", "median inter-token latency", 2},
      {"p99_itl_ms", &Headline::p99_itl_ms, "ms", "P99 inter-token latency", 2},
      {"median_e2el_ms", &Headline::median_e2el_ms, "ms", "median end-to-end latency"},
      {"p99_e2el_ms", &Headline::p99_e2el_ms, "ms", "P99 end-to-end latency"},
      {"median_ttfo_ms", &Headline::median_ttfo_ms, "ms",
       "median time to first output (content or tool call; reasoning excluded)"},
      {"p99_ttfo_ms", &Headline::p99_ttfo_ms, "ms", "P99 time to first output"},
      {"median_intvty", &Headline::median_intvty, "tok/s/user", "1000 / median_tpot_ms"},
      {"p99_intvty", &Headline::p99_intvty, "tok/s/user", "1000 / p99_tpot_ms"},
      {"acceptance_length", &Headline::acceptance_length, "tokens/step",
       "speculative decoding: 1 + accepted drafts / drafts", 2},
      {"avg_power_w", &Headline::avg_power_w, "W/GPU",
       "GPU board power per GPU over the measured window (docs/power.md)", 0},
      {"total_gpu_energy_j", &Headline::total_gpu_energy_j, "J",
       "energy of the point's GPUs over the measured window"},
      {"joules_per_output_token", &Headline::joules_per_output_token, "J/token",
       "total_gpu_energy_j / output tokens", 4},
      {"output_tokens_per_joule", &Headline::output_tokens_per_joule, "tokens/J",
       "output tokens / total_gpu_energy_j", 2},
      {"tool_call_valid_fraction", &Headline::tool_call_valid_fraction, "fraction",
       "tool calls whose arguments are a JSON object / all returned tool calls", 3},
      {"max_concurrency_at_slo", &Headline::max_concurrency_at_slo, "requests",
       "servebench search: the highest concurrency that met every SLO limit (docs/search.md)", 0},
      {"max_request_rate_at_slo", &Headline::max_request_rate_at_slo, "req/s",
       "servebench search: the highest request rate that met every SLO limit (docs/search.md)", 2},
  };
  return kMetrics;
}

std::string FormatHeadlineValue(const HeadlineMetric& metric, std::optional<double> value) {
  if (!value) return "-";
  return fmt::format("{:.{}f}", *value, metric.decimals);
}

const HeadlineMetric* FindHeadlineMetric(std::string_view name) {
  for (const HeadlineMetric& m : HeadlineMetrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

Headline HeadlineFromResult(const json::object& result, const GpuTopology& gpus) {
  Headline h;
  h.completed = Count(result, "completed");
  h.failed = Count(result, "failed");
  h.request_throughput = Number(result, "request_throughput");
  h.output_throughput = Number(result, "output_throughput");
  h.total_token_throughput = Number(result, "total_token_throughput");
  if (h.total_token_throughput && h.output_throughput) {
    h.input_throughput = *h.total_token_throughput - *h.output_throughput;
  }
  if (auto pg =
          PerGpu(h.total_token_throughput.value_or(0), h.output_throughput.value_or(0), gpus)) {
    if (h.total_token_throughput) h.tput_per_gpu = pg->tput_per_gpu;
    if (h.output_throughput) h.output_tput_per_gpu = pg->output_tput_per_gpu;
    if (h.input_throughput) h.input_tput_per_gpu = pg->input_tput_per_gpu;
  }
  // The writer puts 0.0 for the statistics of an empty set: no latency then.
  bool nothing_completed = result.contains("completed") && h.completed == 0;
  if (!nothing_completed) {
    for (const char* stat : {"median", "p99"}) {
      for (const char* what : {"ttft", "tpot", "itl", "e2el"}) {
        std::string key = std::string(stat) + "_" + what + "_ms";
        // The headline names these as the vLLM-compatible result does.
        h.*(FindHeadlineMetric(key)->field) = Number(result, key);
      }
    }
  }
  if (const json::object* ttfo = ServebenchStats(result, "ttfo_ms")) {
    h.median_ttfo_ms = Number(*ttfo, "median");  // null for an empty set
    h.p99_ttfo_ms = Number(*ttfo, "p99");
  }
  if (h.median_tpot_ms) h.median_intvty = Interactivity(*h.median_tpot_ms);
  if (h.p99_tpot_ms) h.p99_intvty = Interactivity(*h.p99_tpot_ms);
  h.acceptance_length = Number(result, "spec_decode_acceptance_length");
  if (!h.acceptance_length) h.acceptance_length = NestedAcceptanceLength(result);
  if (const json::object* power = Power(result)) {
    for (const char* key : {"avg_power_w", "total_gpu_energy_j", "joules_per_output_token",
                            "output_tokens_per_joule"}) {
      h.*(FindHeadlineMetric(key)->field) = Number(*power, key);
    }
  }
  if (const json::object* calls = ServebenchObject(result, "tool_calls")) {
    const double valid = Number(*calls, "valid").value_or(0);
    const double invalid = Number(*calls, "invalid").value_or(0);
    if (valid + invalid > 0) h.tool_call_valid_fraction = valid / (valid + invalid);
  }
  // A search's answer (search/slo_search.h's JSON): null when nothing met the SLO.
  h.max_concurrency_at_slo = Number(result, "max_concurrency_at_slo");
  h.max_request_rate_at_slo = Number(result, "max_request_rate_at_slo");
  return h;
}

}  // namespace servebench::metrics
