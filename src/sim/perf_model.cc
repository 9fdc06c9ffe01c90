#include "sim/perf_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace servebench::sim {
namespace {
// Memory the engine keeps for activations, CUDA graphs and the allocator's slack,
// per GPU (vLLM's profiler reserves a few GB; docs/simulator.md "KV capacity").
constexpr double kActivationReserveBytes = 3e9;
}  // namespace

StatusOr<double> BytesPerParam(const std::string& precision) {
  if (precision == "bf16" || precision == "fp16") return 2.0;
  if (precision == "fp8" || precision == "mxfp8") return 1.0 + 1.0 / 32;  // + block scales
  if (precision == "fp4" || precision == "nvfp4") return 0.5 + 1.0 / 16;  // FP8 scale per 16
  if (precision == "mxfp4") return 0.5 + 1.0 / 32;                        // E8M0 scale per 32
  return Status::InvalidArgument(fmt::format(
      "precision {}: unknown (use bf16, fp16, fp8, mxfp8, fp4, nvfp4, mxfp4)", precision));
}

StatusOr<PerfModel> PerfModel::Create(const Model& model, const Hardware& hw,
                                      const EngineProfile& engine, const PerfSettings& s) {
  if (s.tensor_parallel < 1 || s.data_parallel < 1) {
    return Status::InvalidArgument("--tensor-parallel-size and --data-parallel-size must be >= 1");
  }
  if (s.build_slowdown <= 0) return Status::InvalidArgument("--build-slowdown must be > 0");
  PerfModel p(model, hw, engine, s);
  std::string precision = s.precision.empty() ? model.default_precision : s.precision;
  p.settings_.precision = precision;
  SB_ASSIGN_OR_RETURN(p.bytes_per_param_, BytesPerParam(precision));
  if (s.kv_cache_dtype == "auto" || s.kv_cache_dtype == "bf16" || s.kv_cache_dtype == "fp16" ||
      s.kv_cache_dtype.empty()) {
    p.kv_bytes_per_element_ = 2;
  } else if (s.kv_cache_dtype.rfind("fp8", 0) == 0) {
    p.kv_bytes_per_element_ = 1;
  } else {
    return Status::InvalidArgument(
        fmt::format("--kv-cache-dtype {}: unknown (use auto, bf16, fp16, fp8, fp8_e4m3, fp8_e5m2)",
                    s.kv_cache_dtype));
  }
  // Compute precision: the weight precision when the GPU has tensor cores for it;
  // FP4 weights on a GPU without FP4 run FP8 (or BF16) matmuls.
  std::string compute = precision == "fp16" ? "bf16" : precision;
  if (compute == "nvfp4" || compute == "mxfp4") compute = "fp4";
  if (compute == "mxfp8") compute = "fp8";
  for (const char* fallback : {"fp8", "bf16"}) {
    if (hw.dense_tflops.count(compute)) break;
    compute = fallback;
  }
  if (!hw.dense_tflops.count(compute)) {
    return Status::InvalidArgument(
        fmt::format("hardware {}: dense_tflops has no {} or bf16 entry", hw.name, compute));
  }
  p.peak_flops_ = hw.dense_tflops.at(compute) * 1e12;
  // Attention math runs in BF16 whatever the KV cache holds: the decode kernels engines
  // use (FlashMLA, FlashInfer, TensorRT-LLM's MLA) dequantize an FP8 cache into BF16
  // math, so FP8 KV halves the bytes read, not the FLOP time (the held-out TensorRT-LLM
  // DeepSeek-R1 FP8-KV point in docs/simulator.md agrees).
  p.attention_peak_flops_ =
      hw.dense_tflops.count("bf16") ? hw.dense_tflops.at("bf16") * 1e12 : p.peak_flops_;

  const int tp = s.tensor_parallel, dp = s.data_parallel;
  const double routed_b = model.is_moe() ? model.routed_expert_params_b() : 0;
  const double dense_b = model.params_total_b - routed_b;
  p.dense_bytes_per_gpu_ = dense_b * 1e9 * p.bytes_per_param_ / tp;
  const int expert_shards = s.expert_parallel ? tp * dp : tp;
  p.weight_bytes_per_gpu_ =
      p.dense_bytes_per_gpu_ + routed_b * 1e9 * p.bytes_per_param_ / expert_shards;
  if (model.is_moe()) p.expert_bytes_ = routed_b * 1e9 * p.bytes_per_param_ / model.experts;
  // Active parameters of a token: its top-k routed experts, and the rest (attention,
  // dense FFN, shared experts, embeddings) that runs on the token's own rank.
  p.expert_active_params_ =
      model.is_moe() ? model.experts_active * routed_b * 1e9 / model.experts : 0;
  p.dense_active_params_ = model.params_active_b * 1e9 - p.expert_active_params_;

  // KV bytes per token per GPU (simulator-data.md §2): GQA splits KV heads over TP
  // (replicated when TP > heads); MLA's latent is held whole by every TP rank.
  double per_layer;
  if (model.attention == "mla") {
    per_layer = (model.mla_kv_lora_rank + model.mla_rope_dim) * p.kv_bytes_per_element_;
  } else {
    double heads = std::max(1.0, static_cast<double>(model.kv_heads) / tp);
    per_layer = 2 * heads * model.head_dim * p.kv_bytes_per_element_;
  }
  int full_layers = model.layers - model.sliding_layers;
  p.full_kv_per_token_ = per_layer * full_layers;
  p.sliding_kv_per_token_ = per_layer * model.sliding_layers;
  p.kv_budget_bytes_ = hw.hbm_gb * 1e9 * s.gpu_memory_utilization - p.weight_bytes_per_gpu_ -
                       kActivationReserveBytes;

  // Attention FLOPs per (query token, attended token) pair over all layers: QK^T and
  // PV, 2 FLOPs per multiply-add, per query head. MLA (absorbed) works in the
  // 512-dim latent plus the 64-dim RoPE key.
  double qk_dim = model.head_dim, v_dim = model.head_dim;
  if (model.attention == "mla") {
    qk_dim = model.mla_kv_lora_rank + model.mla_rope_dim;
    v_dim = model.mla_kv_lora_rank;
  }
  p.attention_flops_per_pair_ = 2.0 * model.q_heads * (qk_dim + v_dim) * model.layers;

  // One draft pass: a single transformer layer of the target's width (EAGLE/EAGLE3
  // heads and one MTP layer are one layer) plus the LM head over the vocabulary, and
  // a fixed latency of 10 layers' worth of kernels (norms, sampling, the proposer's
  // bookkeeping). A separate draft model is costed the same way (docs/simulator.md).
  if (s.num_speculative_tokens > 0 && s.spec_method != "ngram") {
    double layer_params = dense_b * 1e9 / model.layers;
    if (model.is_moe()) {
      layer_params +=
          model.experts_active * (routed_b * 1e9 / model.experts) / std::max(1, model.moe_layers);
    }
    double lm_head_params = static_cast<double>(model.vocab) * model.hidden;  // BF16
    p.draft_bytes_ = (layer_params * p.bytes_per_param_ + lm_head_params * 2.0) / tp;
    p.draft_params_ = (layer_params + lm_head_params) / tp;
    p.draft_fixed_s_ = 10 * hw.layer_overhead_us * 1e-6;
  }
  return p;
}

int64_t PerfModel::KvBytesPerGpu(int64_t context) const {
  double window = model_.sliding_window > 0 ? std::min<double>(context, model_.sliding_window) : 0;
  return static_cast<int64_t>(full_kv_per_token_ * context + sliding_kv_per_token_ * window);
}

int64_t PerfModel::KvCapacityTokens() const {
  if (kv_budget_bytes_ <= 0 || full_kv_per_token_ <= 0) return 0;
  return static_cast<int64_t>(kv_budget_bytes_ / full_kv_per_token_) * settings_.data_parallel;
}

double PerfModel::ExpertBytesRead(double tokens) const {
  // Expected distinct experts per layer that `tokens` routed tokens touch with
  // uniform routing: E × (1 − (1 − k/E)^tokens) (simulator-data.md §4.6).
  if (!model_.is_moe() || tokens <= 0) return 0;
  double e = model_.experts, k = model_.experts_active;
  double touched = e * (1 - std::pow(1 - k / e, tokens));
  return touched * expert_bytes_;
}

StepBreakdown PerfModel::Step(const StepShape& shape) const {
  StepBreakdown b;
  const int tp = settings_.tensor_parallel, dp = settings_.data_parallel;
  const int k = settings_.num_speculative_tokens;
  const double tokens = shape.decode_seqs * (1.0 + k) + shape.prefill_tokens;
  if (tokens <= 0) return b;
  // The busiest data-parallel rank sets the step (ranks step in lockstep); without
  // DP it is the whole step.
  const double rank_tokens = shape.rank_max_tokens > 0 ? shape.rank_max_tokens : tokens / dp;
  const double decode_pairs = static_cast<double>(shape.decode_context_tokens) * (1.0 + k);
  const double pairs = decode_pairs + shape.prefill_attention_pairs;
  const double rank_pairs = shape.rank_max_tokens > 0 ? shape.rank_max_pairs : pairs / dp;
  const double rank_kv = shape.rank_max_tokens > 0
                             ? shape.rank_max_kv_bytes
                             : static_cast<double>(shape.decode_kv_bytes) / dp;
  const int seqs = shape.decode_seqs + shape.prefill_seqs;
  const int rank_seqs = shape.rank_max_tokens > 0 ? shape.rank_max_seqs : (seqs + dp - 1) / dp;
  const double peak_bw = hardware_.hbm_tb_per_s * 1e12;
  const double bw = peak_bw * hardware_.hbm_efficiency;

  // ---- memory and compute, per operator class ----
  // Each kernel is bounded by its own roofline and kernels run one after another,
  // so the step pays max(bytes, FLOPs) per operator class, summed: the linear layers
  // (weights read vs GEMM FLOPs) and attention (KV read and written vs attention
  // FLOPs).
  double expert_bytes_per_gpu;
  if (settings_.expert_parallel) {
    expert_bytes_per_gpu = ExpertBytesRead(tokens) / (tp * dp);
  } else {
    expert_bytes_per_gpu = ExpertBytesRead(rank_tokens) / tp;
  }
  const double linear_bytes = dense_bytes_per_gpu_ + expert_bytes_per_gpu;
  // KV: what the decode sequences read, plus the KV every new token writes.
  const double kv_bytes = rank_kv + rank_tokens * (full_kv_per_token_ + sliding_kv_per_token_);
  // A token's dense work runs on its rank; its experts' work is spread over the
  // expert shards (all GPUs with EP).
  const double linear_flops =
      2.0 * (dense_active_params_ * rank_tokens / tp + expert_active_params_ * tokens / (tp * dp));
  // Attention runs at the KV precision (FP8 or BF16), never FP4.
  const double attention_flops = attention_flops_per_pair_ * rank_pairs / tp;
  const double linear_mem = linear_bytes / bw;
  const double attention_mem = kv_bytes / bw;
  const double linear_comp = linear_flops / (peak_flops_ * hardware_.matmul_efficiency);
  const double attention_comp =
      attention_flops / (attention_peak_flops_ * hardware_.attention_efficiency);
  b.memory_s = linear_mem + attention_mem;
  b.compute_s = linear_comp + attention_comp;
  const double gpu_roofline =
      std::max(linear_mem, linear_comp) + std::max(attention_mem, attention_comp);

  // ---- communication (the busiest rank, all layers) ----
  double link = hardware_.scaleup_gb_per_s * 1e9 * hardware_.allreduce_bus_efficiency;
  if (tp > 1) {
    double bytes = rank_tokens * model_.hidden * 2.0;  // BF16 activations
    double one = hardware_.allreduce_latency_us * 1e-6 + 2.0 * (tp - 1) / tp * bytes / link;
    b.communication_s += 2.0 * model_.layers * one;  // after attention and after the MLP
  }
  // Expert parallelism moves tokens only between data-parallel ranks: under TP the
  // activations are replicated on every rank of the group, each rank runs its own
  // experts on all of them and the MoE output joins the TP all-reduce above (vLLM's
  // TP + EP). With DP, every routed copy travels to the rank holding its expert:
  // dispatch in FP8 (1 B), combine in BF16 (2 B) (§4.5).
  if (settings_.expert_parallel && model_.is_moe() && dp > 1) {
    int ep = tp * dp;
    double bytes = rank_tokens * model_.experts_active * model_.hidden * 3.0 * (ep - 1) / ep;
    double one = 2 * hardware_.alltoall_latency_us * 1e-6 + bytes / link;
    b.communication_s += model_.moe_layers * one;
  }

  // ---- kernel latency: CUDA graphs up to the engine's capture size, else eager ----
  const bool graphs = rank_tokens <= engine_.cuda_graph_max_tokens;
  const double layer_us = graphs ? hardware_.layer_overhead_us : engine_.eager_layer_overhead_us;
  const double moe_us =
      hardware_.moe_layer_overhead_us + (graphs ? 0 : engine_.eager_moe_layer_overhead_us);
  b.fixed_s =
      (model_.layers * layer_us + (model_.is_moe() ? model_.moe_layers * moe_us : 0)) * 1e-6;

  // ---- speculative decoding: k draft passes over the decode sequences ----
  double draft_bytes = 0, draft_flops = 0;
  if (k > 0 && shape.decode_seqs > 0 && draft_bytes_ > 0) {
    const double draft_tokens = rank_tokens / (1.0 + k);
    const double one_flops = 2.0 * draft_tokens * draft_params_;
    draft_bytes = k * draft_bytes_;
    draft_flops = k * one_flops;
    b.draft_s =
        k * (std::max(draft_bytes_ / bw, one_flops / (peak_flops_ * hardware_.matmul_efficiency)) +
             draft_fixed_s_);
  }

  // ---- CPU: scheduler, sampling, detokenization (one engine process per DP rank) ----
  b.cpu_s = (hardware_.step_overhead_us + engine_.per_seq_step_us * rank_seqs) * 1e-6;

  const double gpu_s = gpu_roofline + b.communication_s + b.fixed_s + b.draft_s;
  const double step_s = engine_.overlap_cpu ? std::max(b.cpu_s, gpu_s) : b.cpu_s + gpu_s;

  // ---- the physical floor and what the step used of the GPU ----
  b.hbm_bytes = linear_bytes + kv_bytes + draft_bytes;
  b.flops = linear_flops + attention_flops + draft_flops;
  b.roofline_s = std::max(b.hbm_bytes / peak_bw, linear_flops / peak_flops_ +
                                                     attention_flops / attention_peak_flops_ +
                                                     draft_flops / peak_flops_);
  // A "faster build" (build_slowdown < 1) speeds the software up, never the GPU past
  // its roofline.
  b.total_s = std::max(step_s * settings_.build_slowdown, b.roofline_s);
  // The host link is hardware, like the roofline: no build makes the copy faster.
  // It is not overlapped with the step's compute (a blocking load, the simple model).
  if (shape.kv_load_bytes > 0 && settings_.kv_offload_gb_per_s > 0) {
    b.kv_load_s = static_cast<double>(shape.kv_load_bytes) / (settings_.kv_offload_gb_per_s * 1e9);
    b.total_s += b.kv_load_s;
  }
  b.hbm_utilization = b.hbm_bytes / (peak_bw * b.total_s);
  b.compute_utilization = (linear_flops / peak_flops_ + attention_flops / attention_peak_flops_ +
                           draft_flops / peak_flops_) /
                          b.total_s;
  return b;
}

}  // namespace servebench::sim
