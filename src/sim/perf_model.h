// PerfModel: the time one engine step takes, from a roofline of model × hardware ×
// parallelism plus the serving stack's fixed costs (docs/simulator.md, "Step
// time", gives every formula). A step runs the decode tokens of the running
// sequences and a slice of prefill tokens; per GPU its time is
//
//   t_gpu = max(t_weights, t_gemm) + max(t_kv, t_attention) + t_comm + t_kernels + t_draft
//   t_cpu = step_overhead + per_seq_step × sequences in the step
//   t     = (t_cpu + t_gpu, or max(t_cpu, t_gpu) with an overlapping scheduler) × build_slowdown
//
// a roofline per operator class: weights touched over HBM bandwidth × hbm_efficiency
// against 2 × active params × tokens over the dense peak at the weight precision ×
// matmul_efficiency; KV read and written against attention FLOPs (BF16 math over
// the BF16 peak × attention_efficiency); t_comm: TP all-reduces and EP all-to-alls; t_kernels:
// per-layer kernel latency (CUDA graphs, or eager launches for steps above the engine's capture
// size); t_draft: speculative-decoding draft passes. Every term is at least the bytes or FLOPs it
// stands for over the GPU's *peak* bandwidth or compute, so no step is faster than the roofline
// (RooflineSeconds; perf_model_roofline_test sweeps it). Step() also reports what the step moved
// and computed, and so the fraction of peak HBM bandwidth and compute it used: the power model
// reads those. Also owns the memory arithmetic: weight bytes per GPU, KV bytes per token and the KV
// capacity that the scheduler admits against. Thread-safe (const after Create).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "sim/catalogue.h"

namespace servebench::sim {

struct PerfSettings {
  int tensor_parallel = 1;
  int data_parallel = 1;
  bool expert_parallel = false;         // EP = TP × DP across the experts
  std::string precision;                // weights: bf16, fp8, fp4, mxfp4; empty = model default
  std::string kv_cache_dtype = "auto";  // auto (= bf16), bf16, fp8
  double gpu_memory_utilization = 0.9;  // vLLM's meaning: fraction of HBM the engine may use
  int num_speculative_tokens = 0;
  std::string spec_method;      // eagle, eagle3, mtp, draft_model, ngram
  double build_slowdown = 1.0;  // multiplies every step time
  // Host link of the CPU KV offload tier, GB/s per GPU and direction (PCIe-class;
  // docs/simulator.md "KV offload"): what a step pays per byte of KV copied back.
  double kv_offload_gb_per_s = 50;
};

// What one step processes; quantities are over all DP ranks.
struct StepShape {
  int decode_seqs = 0;                 // sequences producing a token this step
  int64_t decode_context_tokens = 0;   // Σ context length of those sequences
  int64_t decode_kv_bytes = 0;         // Σ KV bytes per GPU they read (KvBytesPerGpu)
  int prefill_seqs = 0;                // sequences with a prefill chunk this step
  int prefill_tokens = 0;              // prompt tokens processed this step
  double prefill_attention_pairs = 0;  // Σ over prefill tokens of tokens attended
  // The busiest data-parallel rank's share (equal to the totals without DP; 0 = not
  // given, the totals ÷ DP are used): sequences, tokens, attention pairs, KV read.
  int rank_max_seqs = 0;
  double rank_max_tokens = 0;
  double rank_max_pairs = 0;
  double rank_max_kv_bytes = 0;
  // KV bytes per GPU copied back from the CPU offload tier for sequences admitted
  // this step (Scheduler); the step waits for the copy.
  int64_t kv_load_bytes = 0;
};

struct StepBreakdown {
  // Seconds. memory_s / compute_s are the two sides of the roofline summed over the
  // operator classes (for reports); the step pays the larger side of each class.
  double memory_s = 0, compute_s = 0;
  double communication_s = 0;  // TP all-reduces, EP all-to-alls
  double fixed_s = 0;          // per-layer kernel latency
  double draft_s = 0;          // speculative-decoding draft passes
  double cpu_s = 0;            // scheduler, sampling, detokenization
  double kv_load_s = 0;        // KV copied back from the CPU tier over the host link
  double total_s = 0;          // what the step takes, build_slowdown included
  // What the step did, per GPU: bytes read from or written to HBM (weights, KV) and
  // FLOPs (linear layers + attention), and the least time the GPU's peak bandwidth
  // and peak compute allow for them.
  double hbm_bytes = 0;
  double flops = 0;
  double roofline_s = 0;
  // Fractions of peak HBM bandwidth and of peak compute the step used, averaged over
  // total_s (0..1).
  double hbm_utilization = 0;
  double compute_utilization = 0;
};

class PerfModel {
 public:
  // `engine` is the serving stack the sim stands in for (its CPU costs and CUDA
  // graph capture size).
  static StatusOr<PerfModel> Create(const Model& model, const Hardware& hardware,
                                    const EngineProfile& engine, const PerfSettings& settings);

  StepBreakdown Step(const StepShape& shape) const;
  double StepSeconds(const StepShape& shape) const { return Step(shape).total_s; }

  // Bytes of weights each GPU holds.
  double WeightBytesPerGpu() const { return weight_bytes_per_gpu_; }
  // KV bytes one GPU holds for a sequence of `context` tokens (sliding-window
  // layers count at most `window` tokens).
  int64_t KvBytesPerGpu(int64_t context) const;
  // Bytes available for KV on each GPU; negative when the weights do not fit.
  double KvBudgetBytesPerGpu() const { return kv_budget_bytes_; }
  // Tokens of KV the whole engine (all DP ranks) can hold at full-attention cost.
  int64_t KvCapacityTokens() const;
  int gpus() const { return settings_.tensor_parallel * settings_.data_parallel; }
  const PerfSettings& settings() const { return settings_; }
  const Model& model() const { return model_; }
  const Hardware& hardware() const { return hardware_; }
  const EngineProfile& engine() const { return engine_; }
  double bytes_per_param() const { return bytes_per_param_; }
  // Peak FLOP/s per GPU of the linear layers (weight precision) and of attention
  // (BF16 math), as the roofline uses them.
  double peak_flops() const { return peak_flops_; }
  double attention_peak_flops() const { return attention_peak_flops_; }

 private:
  PerfModel(const Model& m, const Hardware& h, const EngineProfile& e, const PerfSettings& s)
      : model_(m), hardware_(h), engine_(e), settings_(s) {}
  double ExpertBytesRead(double tokens) const;

  Model model_;
  Hardware hardware_;
  EngineProfile engine_;
  PerfSettings settings_;
  double bytes_per_param_ = 2;
  double kv_bytes_per_element_ = 2;
  double peak_flops_ = 0;            // FLOP/s at the compute precision (linear layers)
  double attention_peak_flops_ = 0;  // FLOP/s of attention (BF16 math)
  double weight_bytes_per_gpu_ = 0;
  double dense_bytes_per_gpu_ = 0;   // non-expert weights, read every step
  double expert_bytes_ = 0;          // one routed expert, all MoE layers, whole (unsharded)
  double expert_active_params_ = 0;  // a token's routed experts' parameters
  double dense_active_params_ = 0;   // the rest of a token's active parameters
  double full_kv_per_token_ = 0;     // per GPU, full-attention layers
  double sliding_kv_per_token_ = 0;  // per GPU, sliding-window layers
  double kv_budget_bytes_ = 0;
  double attention_flops_per_pair_ = 0;  // all layers
  double draft_bytes_ = 0;               // one draft pass, per GPU
  double draft_params_ = 0;              // one draft pass's parameters, per GPU
  double draft_fixed_s_ = 0;             // one draft pass's kernel latency
};

// Bytes per weight for a precision name; fails for an unknown one.
StatusOr<double> BytesPerParam(const std::string& precision);

}  // namespace servebench::sim
