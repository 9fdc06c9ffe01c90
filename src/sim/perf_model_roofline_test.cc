// The physical floor: no simulated step is faster than the HBM roofline for the
// weights and KV it must read, nor than the compute roofline for the FLOPs it must
// do, for every model × GPU × precision × parallelism of the catalogue and a spread
// of step shapes. The floors are computed here from the catalogue's raw numbers
// (parameter counts, shapes, peak bandwidth and TFLOP/s), independently of the
// PerfModel's own arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/catalogue.h"
#include "sim/perf_model.h"

namespace servebench::sim {
namespace {

struct Parallel {
  int tp, dp;
  bool ep;
};

// The widest-or-equal precision the GPU has tensor cores for (FP4 weights on a GPU
// without FP4 compute in FP8, then BF16).
double PeakFlops(const Hardware& h, const std::string& precision) {
  std::vector<std::string> order;
  if (precision == "fp4" || precision == "nvfp4" || precision == "mxfp4") order = {"fp4", "fp8"};
  if (precision == "fp8") order = {"fp8"};
  order.push_back("bf16");
  for (const auto& p : order) {
    if (h.dense_tflops.count(p)) return h.dense_tflops.at(p) * 1e12;
  }
  return 0;
}

TEST(PerfModelRooflineTest, NoStepIsFasterThanTheHbmOrComputeRoofline) {
  auto cat = Catalogue::BuiltIn();
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  const EngineProfile& engine = cat->engines.at("vllm");
  int64_t checked = 0;
  for (const auto& [mname, m] : cat->models) {
    const double routed = m.is_moe() ? m.routed_expert_params_b() * 1e9 : 0;
    const double dense = m.params_total_b * 1e9 - routed;
    const double expert_per_layer = m.is_moe() ? routed / m.moe_layers / m.experts : 0;
    for (const auto& [hname, h] : cat->hardware) {
      const double peak_bw = h.hbm_tb_per_s * 1e12;
      for (const std::string precision : {"bf16", "fp8", "nvfp4", "mxfp4"}) {
        const double b = *BytesPerParam(precision);
        for (const std::string kv : {"auto", "fp8"}) {
          const double kv_b = kv == "fp8" ? 1 : 2;
          const double attn_peak = PeakFlops(h, kv == "fp8" ? "fp8" : "bf16");
          for (Parallel par : {Parallel{1, 1, false}, Parallel{2, 1, false}, Parallel{4, 1, false},
                               Parallel{8, 1, false}, Parallel{8, 1, true}, Parallel{1, 8, true}}) {
            if (par.ep && !m.is_moe()) continue;
            for (int k : {0, 3}) {
              PerfSettings s;
              s.tensor_parallel = par.tp;
              s.data_parallel = par.dp;
              s.expert_parallel = par.ep;
              s.precision = precision;
              s.kv_cache_dtype = kv;
              s.num_speculative_tokens = k;
              s.spec_method = k > 0 ? "eagle3" : "";
              auto p = PerfModel::Create(m, h, engine, s);
              ASSERT_TRUE(p.ok()) << p.status().ToString();
              const int gpus = par.tp * par.dp;
              // KV bytes per token per GPU for the full-attention layers and per
              // sliding-window layer (MLA's latent is whole on every TP rank).
              const double heads = std::max(1.0, static_cast<double>(m.kv_heads) / par.tp);
              const double per_layer = m.attention == "mla"
                                           ? (m.mla_kv_lora_rank + m.mla_rope_dim) * kv_b
                                           : 2 * heads * m.head_dim * kv_b;
              const int full_layers = m.layers - m.sliding_layers;
              const double qk =
                  m.attention == "mla" ? m.mla_kv_lora_rank + m.mla_rope_dim : m.head_dim;
              const double v = m.attention == "mla" ? m.mla_kv_lora_rank : m.head_dim;
              for (int batch : {0, 1, 8, 64, 512}) {
                for (int64_t ctx : {128, 4096, 32768}) {
                  for (int prefill : {0, 512, 8192}) {
                    if (batch == 0 && prefill == 0) continue;
                    StepShape shape;
                    shape.decode_seqs = batch;
                    shape.decode_context_tokens = batch * ctx;
                    shape.decode_kv_bytes = batch * p->KvBytesPerGpu(ctx);
                    shape.prefill_seqs = prefill > 0 ? 1 : 0;
                    shape.prefill_tokens = prefill;
                    shape.prefill_attention_pairs = prefill * (ctx + prefill / 2.0);
                    const double tokens = batch * (1.0 + k) + prefill;
                    // HBM: the dense weights every step reads, at least top-k experts
                    // per MoE layer spread over the expert shards, the KV the decode
                    // sequences read.
                    double expert_floor =
                        m.is_moe() ? m.experts_active * expert_per_layer * m.moe_layers * b / gpus
                                   : 0;
                    double window =
                        m.sliding_window > 0
                            ? std::min<double>(static_cast<double>(ctx), m.sliding_window)
                            : 0;
                    double kv_read = batch *
                                     (full_layers * per_layer * static_cast<double>(ctx) +
                                      m.sliding_layers * per_layer * window) /
                                     par.dp;
                    double hbm_floor = (dense * b / par.tp + expert_floor + kv_read) / peak_bw;
                    // Compute: 2 FLOPs per active parameter per token, and QK^T + PV for
                    // every (query, attended token) pair, spread over every GPU.
                    double pairs = batch * static_cast<double>(ctx) * (1.0 + k) +
                                   shape.prefill_attention_pairs;
                    double compute_floor =
                        2.0 * m.params_active_b * 1e9 * tokens / gpus / PeakFlops(h, precision) +
                        2.0 * m.q_heads * (qk + v) * m.layers * pairs / gpus / attn_peak;
                    StepBreakdown st = p->Step(shape);
                    const double floor = std::max(hbm_floor, compute_floor);
                    ASSERT_GE(st.total_s, floor * (1 - 1e-9))
                        << mname << " on " << hname << " " << precision << " kv " << kv << " tp "
                        << par.tp << " dp " << par.dp << (par.ep ? " ep" : "") << " k " << k
                        << " batch " << batch << " ctx " << ctx << " prefill " << prefill;
                    ASSERT_LE(st.hbm_utilization, 1 + 1e-9) << mname << " " << hname;
                    ASSERT_LE(st.compute_utilization, 1 + 1e-9) << mname << " " << hname;
                    ++checked;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 50000);
}

TEST(PerfModelRooflineTest, AFasterBuildNeverBeatsTheRoofline) {
  auto cat = Catalogue::BuiltIn();
  PerfSettings s;
  s.build_slowdown = 0.001;
  auto p = PerfModel::Create(cat->models.at("llama-3.1-8b"), cat->hardware.at("h200"),
                             cat->engines.at("vllm"), s);
  ASSERT_TRUE(p.ok());
  StepShape one;
  one.decode_seqs = 1;
  one.decode_context_tokens = 1024;
  one.decode_kv_bytes = p->KvBytesPerGpu(1024);
  StepBreakdown b = p->Step(one);
  // 16 GB of BF16 weights over 4.8 TB/s: 3.35 ms at the very least.
  EXPECT_GE(b.total_s, 8.03e9 * 2 / 4.8e12);
  EXPECT_DOUBLE_EQ(b.total_s, b.roofline_s);
  EXPECT_NEAR(b.hbm_utilization, 1.0, 1e-9);
}

}  // namespace
}  // namespace servebench::sim
