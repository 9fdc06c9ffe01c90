#include "cli/sim_flags.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "sim/resolved_config.h"

namespace servebench::cli {

void AddSimFlags(CLI::App& app, SimFlags* flags) {
  sim::SimSettings& s = flags->settings;
  std::string& spec_json = flags->spec_json;
  std::string& golden_thinking = flags->golden_thinking;
  std::vector<int>& predict_concurrency = flags->predict_concurrency;
  sim::PredictLoad& load = flags->load;
  // ---- serving ----
  app.add_option("--host", s.host, "address to listen on (IPv4)")->capture_default_str();
  app.add_option("--port", s.port, "port; 0 picks a free one and prints it")->capture_default_str();
  app.add_option("--model", s.model,
                 "catalogue model (llama-3.1-8b, llama-3.1-70b, deepseek-r1, gpt-oss-120b, "
                 "minimax-m3, minimax-m2.5, qwen3-235b-a22b) or its hub name")
      ->capture_default_str();
  app.add_option("--hardware", s.hardware,
                 "catalogue GPU (h100, h200, b200, b300, gb200, gb300, mi300x, mi325x, "
                 "mi355x)")
      ->capture_default_str();
  app.add_option("--engine-profile", s.engine_profile,
                 "the serving engine the sim stands in for (vllm, sglang, trtllm, atom): its "
                 "request, tokenization and per-step CPU costs")
      ->capture_default_str();
  app.add_option("--catalogue-dir", s.catalogue_dir,
                 "load hardware.yaml, models.yaml and engines.yaml from here instead of the "
                 "built-in catalogue");
  app.add_option("--served-model-name", s.served_model_name,
                 "name clients send (vLLM); default: the hub name");
  // ---- vLLM flags ----
  app.add_option("--tensor-parallel-size", s.tensor_parallel_size, "tensor parallel GPUs")
      ->capture_default_str();
  app.add_option("--data-parallel-size", s.data_parallel_size, "data parallel ranks")
      ->capture_default_str();
  app.add_flag("--enable-expert-parallel", s.enable_expert_parallel,
               "shard experts over TP x DP GPUs");
  app.add_option("--max-model-len", s.max_model_len, "context limit; 0 = the model's maximum")
      ->capture_default_str();
  app.add_option("--max-num-seqs", s.max_num_seqs, "sequences per step at most")
      ->capture_default_str();
  app.add_option("--max-num-batched-tokens", s.max_num_batched_tokens,
                 "tokens per step at most (chunked prefill)")
      ->capture_default_str();
  app.add_option("--long-prefill-token-threshold", s.long_prefill_token_threshold,
                 "a prompt's tokens per step at most (0 = no cap; default: the engine profile's)");
  app.add_option("--kv-cache-dtype", s.kv_cache_dtype, "auto, bf16, fp8")->capture_default_str();
  app.add_option("--gpu-memory-utilization", s.gpu_memory_utilization,
                 "fraction of HBM the engine uses")
      ->capture_default_str();
  app.add_option("--quantization,--precision", s.precision,
                 "weight precision: bf16, fp8, fp4, mxfp4 "
                 "(default: the model's)");
  app.add_option("--stream-interval", s.stream_interval, "tokens per SSE event at most")
      ->capture_default_str();
  app.add_option("--reasoning-tokens", s.reasoning_tokens,
                 "chat: the first N output tokens of each request stream as "
                 "delta.reasoning_content (a reasoning model); 0 = none")
      ->capture_default_str();
  app.add_flag("--enable-prefix-caching,!--no-enable-prefix-caching", s.enable_prefix_caching,
               "reuse the KV of cached prompt prefixes (vLLM's rule; /metrics counts "
               "vllm:prefix_cache_queries/hits)");
  app.add_option("--block-size", s.block_size, "tokens per KV block")->capture_default_str();
  app.add_option("--num-gpu-blocks-override", s.num_gpu_blocks_override,
                 "KV blocks in the pool (prefix caching); 0 = what the KV budget holds")
      ->capture_default_str();
  app.add_option("--kv-offload-gb", s.kv_offload_gb,
                 "CPU offload tier for evicted prefix blocks, decimal GB over all GPUs (needs "
                 "--enable-prefix-caching; /metrics counts vllm:external_prefix_cache_*); 0 = none")
      ->capture_default_str();
  app.add_option("--kv-offload-gb-per-s", s.kv_offload_gb_per_s,
                 "the CPU tier's host link, GB/s per GPU and direction (PCIe Gen5 x16)")
      ->capture_default_str();
  app.add_option("--profile-dir", s.profile_dir,
                 "enable POST /start_profile and /stop_profile: write a Chrome trace of the "
                 "engine's steps here (default: $VLLM_TORCH_PROFILER_DIR; unset = endpoints 404)");
  app.add_option("--speculative-config", spec_json,
                 "JSON: method, model, num_speculative_tokens, "
                 "rejection_sample_method, synthetic_acceptance_length");
  app.add_option(
      "--golden-al-table", s.golden_al.table,
      "golden acceptance-length table (e.g. minimaxm3_eagle3_gqa) "
      "for the target AL when --speculative-config gives no synthetic_acceptance_length");
  app.add_option("--golden-al-model", s.golden_al.model,
                 "model key in the golden table (default: --model)");
  app.add_option("--golden-al-thinking", golden_thinking, "on or off: the table's thinking column")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  // ---- simulation ----
  app.add_option("--time-scale", s.time_scale,
                 "wall seconds per simulated second; 0 = as fast as the socket allows")
      ->capture_default_str();
  app.add_option("--build-slowdown", s.build_slowdown,
                 "multiplies every step time (a slower simulated build)")
      ->capture_default_str();
  app.add_option(
         "--power-average-s", s.power_average_s,
         "simulated seconds the board power reading (DCGM_FI_DEV_POWER_USAGE) averages over")
      ->capture_default_str();
  app.add_option("--gpus", s.gpu_indices,
                 "GPU indices this process plays on its node, as CUDA_VISIBLE_DEVICES names them "
                 "(default 0..TPxDP-1; else exactly TPxDP); /metrics labels its GPUs with them")
      ->delimiter(',');
  app.add_option("--node-index", s.node_index,
                 "the node of a serve session this process plays; part of its GPUs' UUIDs")
      ->capture_default_str();
  app.add_option("--seed", s.seed, "seed of generated text, acceptance draws and faults")
      ->capture_default_str();
  app.add_option("--eos-after-mean-tokens", s.eos_after_mean_tokens,
                 "without ignore_eos, stop at a length drawn "
                 "uniformly in 1..2N; 0 = run to max_tokens")
      ->capture_default_str();
  app.add_option("--max-waiting-requests", s.max_waiting_requests,
                 "answer 429 when this many wait; 0 = unlimited")
      ->capture_default_str();
  app.add_option("--api-key", s.api_key,
                 "require \"Authorization: Bearer KEY\" on /v1/* (as vLLM)");
  app.add_flag("--send-time-field", s.send_time_field,
               "add \"servebench_send_ns\" (CLOCK_MONOTONIC) to each SSE "
               "chunk: ground truth for client timing");
  // ---- answering mode ----
  app.add_option("--answer-mode", s.answer_mode, "off, oracle (gsm8k-style answers) or file")
      ->capture_default_str();
  app.add_option("--answer-error-rate", s.answer_error_rate, "fraction answered wrong (oracle)")
      ->capture_default_str();
  app.add_option("--answer-file", s.answer_file,
                 "JSONL of {question, response} (answer-mode file)");
  // ---- faults ----
  auto& f = s.faults;
  app.add_option("--fault-http-500-rate", f.http_500_rate,
                 "fraction of generation requests answered 500");
  app.add_option("--fault-disconnect-after-tokens", f.disconnect_after_tokens,
                 "close streams after N tokens");
  app.add_option("--fault-disconnect-rate", f.disconnect_rate,
                 "fraction of streams the disconnect hits")
      ->capture_default_str();
  app.add_option("--fault-stall-ms", f.stall_ms, "hold a stream's events for T ms");
  app.add_option("--fault-stall-after-tokens", f.stall_after_tokens,
                 "stall once N tokens were sent")
      ->capture_default_str();
  app.add_option("--fault-stall-rate", f.stall_rate, "fraction of streams that stall")
      ->capture_default_str();
  app.add_option("--fault-malformed-sse-rate", f.malformed_sse_rate,
                 "fraction of streams given one malformed event");
  app.add_option("--fault-malformed-after-tokens", f.malformed_after_tokens,
                 "the malformed event follows token N")
      ->capture_default_str();
  app.add_option("--fault-ready-after-s", f.ready_after_s,
                 "/health answers 503 until T seconds after start");
  app.add_option("--fault-exit-at-startup", f.exit_at_startup,
                 "print this line and exit before serving");
  app.add_option("--fault-exit-once", f.exit_once_marker,
                 "with --fault-exit-at-startup: exit only while FILE does not exist, "
                 "creating it (the next start serves)");
  app.add_option("--fault-exit-code", f.exit_code,
                 "exit code for --fault-exit-at-startup and crashes")
      ->capture_default_str();
  app.add_option("--fault-crash-after-requests", f.crash_after_requests,
                 "exit when generation request N+1 arrives");
  // ---- role in a serve session of several processes (docs/simulator.md "Roles") ----
  auto& r = s.role;
  app.add_option("--role", flags->role,
                 "aggregated (prefill and decode), prefill (computes KV and hands it off), "
                 "decode (pulls KV, then decodes) or router (in front of workers)")
      ->check(CLI::IsMember({"aggregated", "prefill", "decode", "router"}))
      ->capture_default_str();
  app.add_option("--kv-connector", r.kv_connector,
                 "prefill/decode: the KV connector (nixl, mooncake, mori, ucx, p2p-nccl, lmcache)")
      ->capture_default_str();
  app.add_option("--kv-link-gb-per-s", r.kv_link_gb_per_s,
                 "decode: per-GPU KV link bandwidth, GB/s (default one 400 Gb/s NIC per GPU)")
      ->capture_default_str();
  app.add_option("--kv-link-latency-us", r.kv_link_latency_us,
                 "decode: fixed cost of one KV transfer, microseconds")
      ->capture_default_str();
  app.add_option("--prefill", r.prefill_urls, "router: a prefill worker's http://host:port");
  app.add_option("--decode", r.decode_urls, "router: a decode worker's http://host:port");
  app.add_option("--worker", r.worker_urls, "router: an aggregated worker's http://host:port");
  app.add_option("--policy", r.policy, "router: round_robin or random")->capture_default_str();
  app.add_option("--health-poll-ms", r.health_poll_ms, "router: worker /health poll interval")
      ->capture_default_str();
  // ---- prediction (no server) ----
  app.add_option("--predict", predict_concurrency,
                 "print the predicted sweep over these concurrencies "
                 "(e.g. 1,4,16,64) in simulated time and exit; serves nothing")
      ->delimiter(',');
  app.add_option("--isl", load.isl, "--predict: prompt tokens per request")->capture_default_str();
  app.add_option("--osl", load.osl, "--predict: output tokens per request")->capture_default_str();
  app.add_option("--num-prompts", load.num_requests,
                 "--predict: requests per point; 0 = 10 x concurrency")
      ->capture_default_str();
  // ---- fidelity (no server) ----
  app.add_flag("--fidelity", flags->fidelity,
               "predict every published measurement (data/sim/published_points.yaml) with this "
               "catalogue, print the error per point and the medians, and exit");
  app.add_option("--published-points", flags->published_points,
                 "--fidelity: measurements in that format from this file instead");
}

Status FinishSimFlags(SimFlags* flags) {
  flags->settings.golden_al.thinking = flags->golden_thinking == "on";
  const std::string& role = flags->role;
  flags->settings.role.role = role == "prefill"  ? sim::SimRole::kPrefill
                              : role == "decode" ? sim::SimRole::kDecode
                              : role == "router" ? sim::SimRole::kRouter
                                                 : sim::SimRole::kAggregated;
  if (const char* origin = std::getenv("SERVEBENCH_SIM_CLOCK_ORIGIN_NS");
      origin != nullptr && *origin != '\0') {
    char* end = nullptr;
    errno = 0;
    const long long ns = std::strtoll(origin, &end, 10);
    if (errno != 0 || *end != '\0' || ns <= 0) {
      return Status::InvalidArgument(fmt::format(
          "SERVEBENCH_SIM_CLOCK_ORIGIN_NS=\"{}\": must be a positive integer (CLOCK_MONOTONIC ns)",
          origin));
    }
    flags->settings.clock_origin_ns = ns;
  }
  if (const char* dir = std::getenv("VLLM_TORCH_PROFILER_DIR");
      flags->settings.profile_dir.empty() && dir != nullptr && *dir != '\0') {
    flags->settings.profile_dir = dir;  // vLLM's name: a session's engine env reaches the sim
  }
  if (!flags->spec_json.empty()) {
    auto spec = sim::ParseSpecConfig(flags->spec_json);
    if (!spec.ok()) return Status::InvalidArgument(spec.status().message());
    flags->settings.spec = *spec;
  }
  return Status::Ok();
}

StatusOr<int> CheckSimCommandLine(const std::vector<std::string>& args) {
  CLI::App app{"servebench sim"};
  SimFlags flags;
  AddSimFlags(app, &flags);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return Status::InvalidArgument(
        fmt::format("servebench sim would refuse its options: {}", e.what()));
  }
  SB_RETURN_IF_ERROR(FinishSimFlags(&flags));
  SB_RETURN_IF_ERROR(sim::Validate(flags.settings));
  SB_ASSIGN_OR_RETURN(sim::ResolvedConfig config, sim::Resolve(flags.settings));
  return config.max_model_len;
}

}  // namespace servebench::cli
