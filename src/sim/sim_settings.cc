#include "sim/sim_settings.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <set>

namespace servebench::sim {
namespace json = boost::json;

StatusOr<SpecConfig> ParseSpecConfig(const std::string& text) {
  SpecConfig c;
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) {
    return Status::InvalidArgument(
        fmt::format("--speculative-config {}: not a JSON object (example: "
                    "'{{\"method\":\"eagle3\",\"num_speculative_tokens\":3,\"rejection_sample_"
                    "method\":\"synthetic\","
                    "\"synthetic_acceptance_length\":2.8}}')",
                    text));
  }
  // Keys vLLM accepts that change nothing in the simulation.
  static const std::set<std::string_view> kIgnored = {"attention_backend",
                                                      "draft_tensor_parallel_size",
                                                      "quantization",
                                                      "max_model_len",
                                                      "revision",
                                                      "code_revision",
                                                      "disable_padded_drafter_batch",
                                                      "prompt_lookup_max",
                                                      "prompt_lookup_min",
                                                      "speculative_token_tree",
                                                      "disable_by_batch_size",
                                                      "enforce_eager",
                                                      "target_model_config",
                                                      "draft_model_config",
                                                      "parallel_draft",
                                                      "probabilistic_sample_method"};
  for (const auto& kv : v.as_object()) {
    std::string_view k = kv.key();
    const json::value& val = kv.value();
    auto bad = [&](const char* rule) {
      return Status::InvalidArgument(fmt::format("--speculative-config {}: {}", k, rule));
    };
    if (k == "method") {
      if (!val.is_string()) return bad("must be a string");
      c.method = std::string(val.as_string());
    } else if (k == "model") {
      if (!val.is_string() && !val.is_null()) return bad("must be a string");
      if (val.is_string()) c.model = std::string(val.as_string());
    } else if (k == "num_speculative_tokens") {
      if (!val.is_int64() || val.as_int64() < 1 || val.as_int64() > 16)
        return bad("must be an integer in 1..16");
      c.num_speculative_tokens = static_cast<int>(val.as_int64());
    } else if (k == "rejection_sample_method") {
      if (!val.is_string()) return bad("must be a string");
      c.rejection_sample_method = std::string(val.as_string());
    } else if (k == "synthetic_acceptance_length") {
      if (!val.is_number()) return bad("must be a number");
      c.synthetic_acceptance_length = val.to_number<double>();
    } else if (!kIgnored.count(k)) {
      return Status::InvalidArgument(fmt::format(
          "--speculative-config: unknown key '{}' (known: method, model, num_speculative_tokens, "
          "rejection_sample_method, synthetic_acceptance_length)",
          k));
    }
  }
  if (c.method.empty()) c.method = c.model.empty() ? "ngram" : "draft_model";
  static const std::set<std::string_view> kMethods = {
      "eagle", "eagle3", "mtp", "draft_model", "ngram", "deepseek_mtp", "medusa", "suffix"};
  if (!kMethods.count(c.method)) {
    return Status::InvalidArgument(fmt::format(
        "--speculative-config method '{}': unknown (use eagle, eagle3, mtp, draft_model, ngram)",
        c.method));
  }
  if (c.num_speculative_tokens == 0) {
    return Status::InvalidArgument(
        "--speculative-config: num_speculative_tokens is required (1..16)");
  }
  // 0 = not given: resolved later from --golden-al-table or the default α (Resolve()).
  if (c.synthetic_acceptance_length != 0 &&
      (c.synthetic_acceptance_length < 1 ||
       c.synthetic_acceptance_length > c.num_speculative_tokens + 1)) {
    return Status::InvalidArgument(
        fmt::format("--speculative-config synthetic_acceptance_length {}: must be in [1, "
                    "num_speculative_tokens + 1 = {}]",
                    c.synthetic_acceptance_length, c.num_speculative_tokens + 1));
  }
  return c;
}

Status Validate(const SimSettings& s) {
  auto bad = [](std::string m) { return Status::InvalidArgument(std::move(m)); };
  if (s.port < 0 || s.port > 65535)
    return bad(fmt::format("--port {}: must be 0..65535 (0 picks a free port)", s.port));
  if (s.tensor_parallel_size < 1) return bad("--tensor-parallel-size must be >= 1");
  if (s.data_parallel_size < 1) return bad("--data-parallel-size must be >= 1");
  if (s.max_num_seqs < 1)
    return bad(fmt::format("--max-num-seqs {}: must be >= 1", s.max_num_seqs));
  if (s.max_num_batched_tokens < 1) return bad("--max-num-batched-tokens must be >= 1");
  if (s.max_model_len < 0) return bad("--max-model-len must be >= 0 (0 = the model's maximum)");
  if (s.block_size < 1 || s.block_size > 1024)
    return bad(fmt::format("--block-size {}: must be 1..1024 tokens", s.block_size));
  if (s.num_gpu_blocks_override < 0)
    return bad(fmt::format("--num-gpu-blocks-override {}: must be >= 0 (0 = from the KV budget)",
                           s.num_gpu_blocks_override));
  if (s.reasoning_tokens < 0 || s.reasoning_tokens > (1 << 24))
    return bad(fmt::format("--reasoning-tokens {}: must be 0 (none) .. {} tokens",
                           s.reasoning_tokens, 1 << 24));
  if (!(s.kv_offload_gb >= 0 && s.kv_offload_gb <= 1e6))
    return bad(
        fmt::format("--kv-offload-gb {}: must be 0 (no CPU tier) to 1e6 GB", s.kv_offload_gb));
  if (s.kv_offload_gb > 0 && !s.enable_prefix_caching)
    return bad(
        fmt::format("--kv-offload-gb {}: the CPU tier keeps evicted prefix blocks; add "
                    "--enable-prefix-caching",
                    s.kv_offload_gb));
  if (!(s.kv_offload_gb_per_s > 0 && s.kv_offload_gb_per_s <= 1e4))
    return bad(fmt::format("--kv-offload-gb-per-s {}: must be > 0 and <= 1e4 GB/s per GPU",
                           s.kv_offload_gb_per_s));
  if (s.stream_interval < 1)
    return bad(fmt::format("--stream-interval {}: must be >= 1", s.stream_interval));
  if (!(s.power_average_s >= 0.01 && s.power_average_s <= 60)) {
    return Status::InvalidArgument(fmt::format(
        "--power-average-s {}: the power sensor's averaging window, 0.01 to 60 simulated seconds",
        s.power_average_s));
  }
  if (s.node_index < 0 || s.node_index > 999999)
    return bad(fmt::format("--node-index {}: must be 0 to 999999", s.node_index));
  for (int g : s.gpu_indices) {
    if (g < 0 || g > 999999) return bad(fmt::format("--gpus: GPU index {} is not 0 to 999999", g));
  }
  if (s.time_scale < 0)
    return bad(
        fmt::format("--time-scale {}: must be >= 0 (0 = as fast as possible)", s.time_scale));
  if (s.build_slowdown <= 0)
    return bad(fmt::format("--build-slowdown {}: must be > 0", s.build_slowdown));
  if (s.gpu_memory_utilization <= 0 || s.gpu_memory_utilization > 1) {
    return bad(
        fmt::format("--gpu-memory-utilization {}: must be in (0, 1]", s.gpu_memory_utilization));
  }
  if (s.answer_mode != "off" && s.answer_mode != "oracle" && s.answer_mode != "file") {
    return bad(fmt::format("--answer-mode {}: must be off, oracle or file", s.answer_mode));
  }
  if (s.answer_mode == "file" && s.answer_file.empty())
    return bad("--answer-mode file needs --answer-file PATH");
  if (s.answer_error_rate < 0 || s.answer_error_rate > 1)
    return bad("--answer-error-rate must be in [0, 1]");
  const FaultSettings& f = s.faults;
  for (auto [name, rate] : {std::pair{"--fault-http-500-rate", f.http_500_rate},
                            std::pair{"--fault-disconnect-rate", f.disconnect_rate},
                            std::pair{"--fault-stall-rate", f.stall_rate},
                            std::pair{"--fault-malformed-sse-rate", f.malformed_sse_rate}}) {
    if (rate < 0 || rate > 1) return bad(fmt::format("{} {}: must be in [0, 1]", name, rate));
  }
  if (f.stall_ms < 0) return bad("--fault-stall-ms must be >= 0");
  if (f.ready_after_s < 0) return bad("--fault-ready-after-s must be >= 0");
  if (f.exit_code < 0 || f.exit_code > 255) return bad("--fault-exit-code must be 0..255");
  if (!f.exit_once_marker.empty() && f.exit_at_startup.empty()) {
    return bad("--fault-exit-once needs --fault-exit-at-startup (the line to exit with)");
  }
  return Status::Ok();
}

}  // namespace servebench::sim
