// The physics of the simulated disaggregated session (docs/simulator.md "Roles"), in
// simulated time with the serving engine's own code: decode-only TPOT does not grow
// with the prefill load, TTFT includes the KV transfer, and throughput per GPU moves
// with the prefill:decode ratio as the roles' capacities say.
#include "sim/predict_disagg.h"

#include <gtest/gtest.h>

#include "sim/catalogue.h"
#include "sim/kv_transfer.h"
#include "sim/resolved_config.h"

namespace servebench::sim {
namespace {

// Llama-3.1-8B on H200, TP 2 per replica, the session of issue 16's "done when". The
// GPUs' physics is under test, so the serving stack's own costs (vLLM's fixed request
// overhead, tokenization, per-sequence CPU: data/sim/engines.yaml) are set to zero: they
// are delays outside the GPUs that would blur the effects these tests size.
ResolvedConfig Replica() {
  auto catalogue = Catalogue::BuiltIn();
  EXPECT_TRUE(catalogue.ok()) << catalogue.status().ToString();
  EngineProfile bare = catalogue->engines.at("vllm");
  bare.name = "gpu-only";
  bare.request_overhead_ms = 0;
  bare.tokenize_us_per_token = 0;
  bare.per_seq_step_us = 0;
  catalogue->engines[bare.name] = bare;
  SimSettings s;
  s.model = "llama-3.1-8b";
  s.hardware = "h200";
  s.tensor_parallel_size = 2;
  s.engine_profile = bare.name;
  auto c = Resolve(s, *catalogue);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

DisaggPredictedPoint Disagg(const ResolvedConfig& r, int p, int d, const PredictLoad& load,
                            double link_gb_per_s = 50) {
  DisaggSession ds;
  ds.prefill_replicas = p;
  ds.decode_replicas = d;
  ds.prefill_perf = &*r.perf;
  ds.decode_perf = &*r.perf;
  ds.prefill_scheduler = r.scheduler;
  ds.decode_scheduler = r.scheduler;
  ds.engine = r.engine;
  ds.kv_link_gb_per_s = link_gb_per_s;
  auto out = PredictDisaggregated(ds, load);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : DisaggPredictedPoint{};
}

PredictedPoint Aggregated(const ResolvedConfig& r, const PredictLoad& load) {
  auto out = PredictClosedLoop(*r.perf, r.scheduler, r.engine, load);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : PredictedPoint{};
}

PredictLoad Load(int conc, int isl, int osl, int requests) {
  PredictLoad l;
  l.concurrency = conc;
  l.isl = isl;
  l.osl = osl;
  l.num_requests = requests;
  return l;
}

// A decode step of `batch` sequences at context `ctx`, as the perf model prices it.
double DecodeStepMs(const PerfModel& perf, int batch, int64_t ctx) {
  StepShape s;
  s.decode_seqs = batch;
  s.decode_context_tokens = batch * ctx;
  s.decode_kv_bytes = batch * perf.KvBytesPerGpu(ctx);
  return perf.StepSeconds(s) * 1e3;
}

TEST(PredictDisaggTest, DecodeOnlyTpotDoesNotGrowWithThePrefillLoad) {
  const ResolvedConfig r = Replica();
  // Same decode batch (16 in flight over 2 decode replicas), 16x the prefill work.
  const auto short_prompts = Disagg(r, 1, 2, Load(16, 256, 128, 96));
  const auto long_prompts = Disagg(r, 1, 2, Load(16, 4096, 128, 96));
  const double disagg_growth =
      long_prompts.point.median_tpot_ms / short_prompts.point.median_tpot_ms;
  // What a decode-only step grows by when its KV is longer (the only effect left).
  const double kv_growth = DecodeStepMs(*r.perf, 8, 4096 + 64) / DecodeStepMs(*r.perf, 8, 256 + 64);
  // The aggregated server runs the same prompts' prefill chunks between its decode steps.
  const auto agg_short = Aggregated(r, Load(16, 256, 128, 96));
  const auto agg_long = Aggregated(r, Load(16, 4096, 128, 96));
  const double agg_growth = agg_long.median_tpot_ms / agg_short.median_tpot_ms;
  std::printf(
      "TPOT disagg %.3f -> %.3f ms (x%.3f; decode-only KV growth x%.3f); aggregated "
      "%.3f -> %.3f ms (x%.3f)\n",
      short_prompts.point.median_tpot_ms, long_prompts.point.median_tpot_ms, disagg_growth,
      kv_growth, agg_short.median_tpot_ms, agg_long.median_tpot_ms, agg_growth);
  // Decode-only steps grow only with the longer KV they read (at most that: with
  // longer prompts the prefill side lets fewer requests decode at once) ...
  EXPECT_LE(disagg_growth, kv_growth * 1.02);
  EXPECT_GE(disagg_growth, 1.0);
  // ... while the aggregated server's TPOT more than doubles under the prefill load.
  EXPECT_GT(agg_growth, 2.0);
  EXPECT_GT(agg_growth, disagg_growth * 1.8);
}

TEST(PredictDisaggTest, TtftIncludesTheKvTransferAtTheLinkBandwidth) {
  const ResolvedConfig r = Replica();
  const PredictLoad one = Load(1, 4096, 16, 8);  // one at a time: no queueing anywhere
  const auto fast = Disagg(r, 1, 1, one, 50);
  const auto slow = Disagg(r, 1, 1, one, 5);
  const int64_t bytes = r.perf->KvBytesPerGpu(4096);
  const double want_ms = (bytes / 5e9 - bytes / 50e9) * 1e3;
  std::printf(
      "TTFT %.3f ms at 50 GB/s, %.3f ms at 5 GB/s; transfer %.3f -> %.3f ms; "
      "KV %.1f MB per GPU\n",
      fast.point.median_ttft_ms, slow.point.median_ttft_ms, fast.mean_transfer_ms,
      slow.mean_transfer_ms, bytes / 1e6);
  EXPECT_NEAR(slow.point.median_ttft_ms - fast.point.median_ttft_ms, want_ms, 0.01 * want_ms);
  EXPECT_NEAR(slow.mean_transfer_ms - fast.mean_transfer_ms, want_ms, 1e-6);
  // TTFT = prefill + transfer + the first decode step: more than the aggregated server's.
  const auto agg = Aggregated(r, one);
  EXPECT_GT(fast.point.median_ttft_ms, agg.median_ttft_ms + fast.mean_transfer_ms);
}

// A prefill engine at full budget: max_num_batched_tokens of whole prompts per step.
double PrefillCapacityReqPerS(const ResolvedConfig& r, int isl) {
  const int per_step = r.scheduler.max_num_batched_tokens / isl;
  StepShape s;
  s.prefill_tokens = per_step * isl;
  s.prefill_attention_pairs = static_cast<double>(per_step) * isl * (isl / 2.0);
  return per_step / r.perf->StepSeconds(s);
}

TEST(PredictDisaggTest, ThroughputPerGpuFollowsTheDecodeBatchAsDecodeReplicasAreAdded) {
  // Decode-heavy: 64 users, short prompts, long answers. Each decode replica serves
  // 64 / d of them; one step gives each a token, so a decode GPU's output rate is
  // (64 / d) / step(64 / d) / 2 GPUs — memory-bound steps barely shrink with the
  // batch, so per-GPU throughput falls as decode replicas are added.
  const ResolvedConfig r = Replica();
  const int users = 64, isl = 256, osl = 1024;
  double previous = 0;
  for (int d : {1, 2, 4}) {
    const auto pt = Disagg(r, 1, d, Load(users, isl, osl, 4 * users));
    const int batch = users / d;
    const double step_ms = DecodeStepMs(*r.perf, batch, isl + osl / 2);
    const double want = batch / (step_ms / 1e3) / r.perf->gpus();
    std::printf(
        "1P:%dD output %.1f tok/s per decode GPU (model: batch %d, step %.3f ms -> %.1f); "
        "%.1f tok/s/GPU over P + D\n",
        d, pt.output_tput_per_gpu, batch, step_ms, want, pt.tput_per_gpu);
    EXPECT_NEAR(pt.output_tput_per_gpu, want, 0.10 * want) << "1P:" << d << "D";
    if (previous > 0) {
      EXPECT_LT(pt.tput_per_gpu, previous * 0.9) << "1P:" << d << "D";
    }
    previous = pt.tput_per_gpu;
  }
}

TEST(PredictDisaggTest, APrefillBoundSessionGainsNothingFromMoreDecodeReplicas) {
  // Prefill-heavy: 1024-token prompts, 256-token answers, 256 users: the one prefill
  // replica is saturated, so requests/s stay at its capacity whatever the decode
  // side, and throughput per GPU falls as 1 / (P + D).
  const ResolvedConfig r = Replica();
  const double capacity = PrefillCapacityReqPerS(r, 1024);
  const auto two = Disagg(r, 1, 2, Load(256, 1024, 256, 1024));
  const auto four = Disagg(r, 1, 4, Load(256, 1024, 256, 1024));
  const double rps2 = two.point.completed / two.point.duration_s;
  const double rps4 = four.point.completed / four.point.duration_s;
  std::printf(
      "prefill capacity %.1f req/s; 1P:2D %.1f req/s %.1f tok/s/GPU (prefill busy %.3f, "
      "decode %.3f); 1P:4D %.1f req/s %.1f tok/s/GPU (prefill busy %.3f, decode %.3f)\n",
      capacity, rps2, two.tput_per_gpu, two.prefill_busy, two.decode_busy, rps4, four.tput_per_gpu,
      four.prefill_busy, four.decode_busy);
  // The prefill replica is the bottleneck: busy but for the run's ramp down (the last
  // requests still decoding), and while busy it runs at its capacity.
  EXPECT_GT(two.prefill_busy, 0.85);
  EXPECT_NEAR(rps2, capacity * two.prefill_busy, 0.02 * capacity);
  EXPECT_NEAR(rps4, capacity * four.prefill_busy, 0.02 * capacity);
  // Twice the decode replicas buy nothing; per GPU falls with the GPUs, (2+4)/(2+8).
  EXPECT_NEAR(rps4 / rps2, 1.0, 0.02);
  EXPECT_NEAR(four.tput_per_gpu / two.tput_per_gpu, 6.0 / 10.0, 0.02);
}

}  // namespace
}  // namespace servebench::sim
