// PerfModel: the time one engine step takes, from a roofline of model × hardware ×
// parallelism (docs/simulator.md, "Step time", gives every formula). A step runs
// the decode tokens of the running sequences and a slice of prefill tokens; its
// time is
//
//   t = max(t_weights, t_gemm) + max(t_kv, t_attention) + t_communication + t_fixed,
//       × build_slowdown
//
// a roofline per operator class: weights touched over HBM bandwidth ×
// hbm_efficiency against 2 × active params × tokens over the dense peak at the
// weight precision × matmul_efficiency; KV read against attention FLOPs (at the KV
// precision); t_communication: TP all-reduces and EP
// all-to-alls; t_fixed: per-step and per-layer kernel overheads. With speculative
// decoding each decode sequence verifies 1 + k tokens and k draft passes are added.
// Also owns the memory arithmetic: weight bytes per GPU, KV bytes per token and the
// KV capacity that the scheduler admits against.
// Thread-safe (const after Create).
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
};

// What one step processes; quantities are over all DP ranks.
struct StepShape {
  int decode_seqs = 0;                 // sequences producing a token this step
  int64_t decode_context_tokens = 0;   // Σ context length of those sequences
  int64_t decode_kv_bytes = 0;         // Σ KV bytes per GPU they read (KvBytesPerGpu)
  int prefill_tokens = 0;              // prompt tokens processed this step
  double prefill_attention_pairs = 0;  // Σ over prefill tokens of tokens attended
};

struct StepBreakdown {
  double memory_s = 0, compute_s = 0;  // sums over operator classes (for reports)
  double communication_s = 0, fixed_s = 0, draft_s = 0;
  double total_s = 0;
};

class PerfModel {
 public:
  static StatusOr<PerfModel> Create(const Model& model, const Hardware& hardware,
                                    const PerfSettings& settings);

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
  double bytes_per_param() const { return bytes_per_param_; }

 private:
  PerfModel(const Model& m, const Hardware& h, const PerfSettings& s)
      : model_(m), hardware_(h), settings_(s) {}
  double ExpertBytesRead(double tokens) const;

  Model model_;
  Hardware hardware_;
  PerfSettings settings_;
  double bytes_per_param_ = 2;
  double kv_bytes_per_element_ = 2;
  double peak_flops_ = 0;            // FLOP/s at the compute precision (linear layers)
  double attention_peak_flops_ = 0;  // FLOP/s at the KV precision (attention)
  double weight_bytes_per_gpu_ = 0;
  double dense_bytes_per_gpu_ = 0;   // non-expert weights, read every step
  double expert_bytes_ = 0;          // one routed expert, all MoE layers, whole (unsharded)
  double full_kv_per_token_ = 0;     // per GPU, full-attention layers
  double sliding_kv_per_token_ = 0;  // per GPU, sliding-window layers
  double kv_budget_bytes_ = 0;
  double attention_flops_per_pair_ = 0;  // all layers
  double draft_step_s_ = 0;
};

// Bytes per weight for a precision name; fails for an unknown one.
StatusOr<double> BytesPerParam(const std::string& precision);

}  // namespace servebench::sim
