// Catalogue: the hardware and model descriptions the performance model reads.
// They ship as YAML (data/sim/hardware.yaml, data/sim/models.yaml), every number
// with its source, and are compiled into the binary so `servebench sim` needs no
// files at run time; --catalogue-dir loads edited copies instead.
// Thread-safe after loading (plain values).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace servebench::sim {

struct Hardware {
  std::string name;  // catalogue key, e.g. "h200"
  std::string description;
  double hbm_gb = 0;                           // device memory, decimal GB
  double hbm_tb_per_s = 0;                     // peak memory bandwidth
  std::map<std::string, double> dense_tflops;  // by precision: "bf16", "fp8", "fp4"
  double scaleup_gb_per_s = 0;                 // per GPU, unidirectional
  int gpus_per_node = 8;
  // ---- Efficiency factors (fitted or from measured ceilings; sources in the YAML) ----
  double matmul_efficiency = 0.6;  // achieved / dense peak for prefill GEMMs
  double hbm_efficiency = 0.75;    // achieved / peak bandwidth for decode reads
  double allreduce_bus_efficiency = 0.8;
  double allreduce_latency_us = 8;     // per all-reduce call (small-message floor)
  double alltoall_latency_us = 30;     // per EP dispatch or combine
  double step_overhead_us = 1000;      // scheduler + launch per engine step
  double layer_overhead_us = 15;       // fixed kernel latency per layer per step (CUDA graphs)
  double moe_layer_overhead_us = 100;  // extra fixed latency per MoE layer per step
  // Achieved / dense peak of the attention kernels (FlashAttention, FlashMLA), which
  // reach less of the peak than the best GEMM shapes.
  double attention_efficiency = 0.5;
  // ---- Board power (power_model.h; sources in the YAML) ----
  double tdp_w = 0;         // the board's power limit (TDP / TGP / TBP), W
  double idle_power_w = 0;  // with the model loaded and no step running, W
};

// The utilisation weights of the power model (power_model.h), shared by all GPUs:
// hardware.yaml's top-level `power_model` map.
struct PowerModelSpec {
  double compute_weight = 1.0;  // share of (TDP − idle) a fully compute-bound step adds
  double hbm_weight = 0.35;     // share a fully memory-bound step adds
};

// What the serving stack (not the GPU) costs: the engine the sim stands in for.
// Each field is a latency or CPU cost of vLLM, SGLang, TensorRT-LLM, ... with its
// source in data/sim/engines.yaml.
struct EngineProfile {
  std::string name;  // catalogue key, e.g. "vllm"
  std::string description;
  // Latency from a request's arrival until the scheduler may run it (HTTP parsing,
  // input processing, the hop to the engine process), independent of its length.
  // A delay, not a resource: requests overlap in it.
  double request_overhead_ms = 0;
  // Prompt processing (tokenization, input checks) per prompt token, also a delay.
  double tokenize_us_per_token = 0;
  // CPU time per scheduled sequence per step: bookkeeping, sampling, detokenization
  // and output streaming.
  double per_seq_step_us = 0;
  // The CPU work of a step overlaps the GPU's (an asynchronous / overlap scheduler):
  // a step costs max(CPU, GPU) instead of their sum.
  bool overlap_cpu = false;
  // Steps of at most this many tokens (per data-parallel rank) replay captured CUDA
  // graphs; larger steps run eagerly, paying eager_layer_overhead_us per layer (and
  // eager_moe_layer_overhead_us more per MoE layer: routing, permutes, expert dispatch
  // and grouped GEMMs are many more kernels) instead of the GPU's graph latency
  // (Hardware::layer_overhead_us): the engine's own dispatch of every kernel.
  int cuda_graph_max_tokens = 512;
  double eager_layer_overhead_us = 60;
  double eager_moe_layer_overhead_us = 0;
  // The engine's default cap on one prompt's tokens per step (vLLM
  // --long-prefill-token-threshold); 0 = none. --long-prefill-token-threshold sets it.
  int long_prefill_token_threshold = 0;
};

struct Model {
  std::string name;     // catalogue key, e.g. "llama-3.1-70b"
  std::string hf_name;  // served name by default
  // Other hub names of the same architecture (quantized releases such as
  // "nvidia/DeepSeek-R1-0528-FP4-V2"): a recipe naming one rehearses this model.
  std::vector<std::string> aliases;
  double params_total_b = 0;  // billions
  double params_active_b = 0;
  int layers = 0;
  int hidden = 0;
  int q_heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  int vocab = 128256;
  int max_context = 131072;
  std::string default_precision = "bf16";
  // Attention: "gqa" or "mla".
  std::string attention = "gqa";
  int mla_kv_lora_rank = 0;
  int mla_rope_dim = 0;
  // Sliding-window layers (gpt-oss): this many layers keep only `window` tokens.
  int sliding_layers = 0;
  int sliding_window = 0;
  // MoE (0 experts = dense).
  int experts = 0;
  int experts_active = 0;
  int experts_shared = 0;
  int expert_ffn = 0;
  int moe_layers = 0;
  bool is_moe() const { return experts > 0; }
  // Parameters in routed experts (billions), derived: moe_layers × experts × 3 × hidden ×
  // expert_ffn.
  double routed_expert_params_b() const;
};

struct Catalogue {
  std::map<std::string, Hardware> hardware;
  std::map<std::string, Model> models;
  std::map<std::string, EngineProfile> engines;
  PowerModelSpec power_model;

  // The catalogue compiled into the binary.
  static StatusOr<Catalogue> BuiltIn();
  // hardware.yaml, models.yaml and engines.yaml from `dir`.
  static StatusOr<Catalogue> FromDir(const std::string& dir);
  // Parses the documents strictly (config/config_file.h): unknown or missing
  // fields, wrong types, a number without a source and out-of-range values are all
  // reported at once, each as file:line:column: hardware.<name>.<field>: message.
  // An empty engines document gives the built-in engine profiles.
  static StatusOr<Catalogue> FromYaml(const std::string& hardware_yaml,
                                      const std::string& models_yaml,
                                      const std::string& hardware_file = "hardware.yaml",
                                      const std::string& models_file = "models.yaml",
                                      const std::string& engines_yaml = "",
                                      const std::string& engines_file = "engines.yaml");

  // Lookups that fail with the list of known names. FindModel matches the key, the
  // hub name or an alias (case-insensitive for hub names).
  StatusOr<const Hardware*> FindHardware(const std::string& name) const;
  StatusOr<const Model*> FindModel(const std::string& name) const;
  StatusOr<const EngineProfile*> FindEngine(const std::string& name) const;
};

}  // namespace servebench::sim
