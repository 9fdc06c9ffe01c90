#include "sim/perf_model.h"

#include <gtest/gtest.h>

#include "sim/catalogue.h"

namespace servebench::sim {
namespace {

PerfModel Make(const std::string& model, const std::string& hw, PerfSettings s) {
  auto cat = Catalogue::BuiltIn();
  EXPECT_TRUE(cat.ok()) << cat.status().ToString();
  auto m = cat->FindModel(model);
  auto h = cat->FindHardware(hw);
  EXPECT_TRUE(m.ok() && h.ok());
  auto e = cat->FindEngine("vllm");
  EXPECT_TRUE(e.ok());
  auto p = PerfModel::Create(**m, **h, **e, s);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return *p;
}

TEST(PerfModelTest, KvBytesPerTokenMatchTheReferenceTable) {
  // simulator-data.md §2: all layers, per token, BF16.
  PerfSettings bf16;
  bf16.precision = "bf16";
  EXPECT_EQ(Make("llama-3.1-8b", "h200", bf16).KvBytesPerGpu(1), 131072);
  EXPECT_EQ(Make("llama-3.1-70b", "h200", bf16).KvBytesPerGpu(1), 327680);
  PerfSettings r1 = bf16;
  r1.tensor_parallel = 8;
  r1.precision = "fp8";
  // MLA: 576 × 2 B × 61 layers = 70,272, held whole by every TP rank.
  EXPECT_EQ(Make("deepseek-r1", "h200", r1).KvBytesPerGpu(1), 70272);
  PerfSettings tp8 = bf16;
  tp8.tensor_parallel = 8;
  EXPECT_EQ(Make("llama-3.1-70b", "h200", tp8).KvBytesPerGpu(1), 327680 / 8);
  tp8.kv_cache_dtype = "fp8";
  EXPECT_EQ(Make("llama-3.1-70b", "h200", tp8).KvBytesPerGpu(1), 327680 / 16);
}

TEST(PerfModelTest, SlidingWindowLayersHoldAtMostTheWindow) {
  PerfSettings s;
  s.kv_cache_dtype = "bf16";
  PerfModel p = Make("gpt-oss-120b", "h200", s);
  // 18 full layers × 2,048 B per token, plus 18 × 2,048 × min(ctx, 128).
  EXPECT_EQ(p.KvBytesPerGpu(1000), 36864 * 1000 + 36864 * 128);
}

TEST(PerfModelTest, DecodeIsMemoryBoundAndPrefillComputeBound) {
  PerfSettings s;
  s.tensor_parallel = 8;
  PerfModel p = Make("llama-3.1-70b", "h200", s);
  StepShape decode;
  decode.decode_seqs = 1;
  decode.decode_context_tokens = 1024;
  decode.decode_kv_bytes = p.KvBytesPerGpu(1024);
  StepBreakdown d = p.Step(decode);
  EXPECT_GT(d.memory_s, d.compute_s);
  StepShape prefill;
  prefill.prefill_tokens = 8192;
  prefill.prefill_attention_pairs = 8192.0 * 4096;
  StepBreakdown f = p.Step(prefill);
  EXPECT_GT(f.compute_s, f.memory_s);
  EXPECT_GT(f.total_s, d.total_s);
}

TEST(PerfModelTest, BuildSlowdownMultipliesStepTime) {
  PerfSettings s;
  PerfModel base = Make("llama-3.1-8b", "h100", s);
  s.build_slowdown = 1.25;
  PerfModel slow = Make("llama-3.1-8b", "h100", s);
  StepShape shape;
  shape.decode_seqs = 4;
  shape.decode_context_tokens = 4000;
  EXPECT_NEAR(slow.StepSeconds(shape), 1.25 * base.StepSeconds(shape), 1e-12);
}

TEST(PerfModelTest, WeightsThatDoNotFitLeaveNoKvBudget) {
  PerfSettings s;  // DeepSeek-R1 FP8 on one H100
  PerfModel p = Make("deepseek-r1", "h100", s);
  EXPECT_LT(p.KvBudgetBytesPerGpu(), 0);
  EXPECT_EQ(p.KvCapacityTokens(), 0);
}

TEST(PerfModelTest, ExpertParallelShardsExperts) {
  PerfSettings tp;
  tp.tensor_parallel = 8;
  PerfSettings ep = tp;
  ep.expert_parallel = true;
  ep.tensor_parallel = 1;
  ep.data_parallel = 8;
  PerfModel a = Make("deepseek-r1", "b200", tp), b = Make("deepseek-r1", "b200", ep);
  // DEP replicates attention/dense weights on every rank: more bytes per GPU.
  EXPECT_GT(b.WeightBytesPerGpu(), a.WeightBytesPerGpu());
}

}  // namespace
}  // namespace servebench::sim
