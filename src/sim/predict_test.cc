// The curve-shape test: sweeping concurrency 1..512 on Llama-3.1-70B at TP8 on H200
// (in simulated time, with the serving engine's own code) behaves like a real
// engine: TTFT and TPOT rise with concurrency, throughput per GPU rises and
// saturates, and speculative decoding helps per-user speed most at low concurrency.
#include "sim/predict.h"

#include <gtest/gtest.h>

#include "sim/resolved_config.h"

namespace servebench::sim {
namespace {

std::vector<PredictedPoint> Sweep(const SimSettings& s, const std::vector<int>& conc) {
  auto config = Resolve(s);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  std::vector<PredictedPoint> out;
  for (int c : conc) {
    PredictLoad load;
    load.concurrency = c;
    load.isl = 1024;
    load.osl = 256;
    load.num_requests = 3 * c;
    auto p = PredictClosedLoop(*config->perf, config->scheduler, config->engine, load);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->completed, 3 * c);
    out.push_back(*p);
  }
  return out;
}

SimSettings Llama70bTp8H200() {
  SimSettings s;
  s.model = "llama-3.1-70b";
  s.hardware = "h200";
  s.tensor_parallel_size = 8;
  s.max_num_seqs = 512;
  return s;
}

TEST(PredictTest, Llama70bTp8H200CurvesBehaveLikeARealEngine) {
  const std::vector<int> conc = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  auto pts = Sweep(Llama70bTp8H200(), conc);
  std::printf("%s", PredictTable(pts).c_str());
  for (size_t i = 1; i < pts.size(); ++i) {
    EXPECT_GE(pts[i].median_tpot_ms, pts[i - 1].median_tpot_ms * 0.99)
        << "TPOT rises, conc " << conc[i];
    EXPECT_GT(pts[i].output_tok_s_per_gpu, pts[i - 1].output_tok_s_per_gpu)
        << "throughput rises, conc " << conc[i];
  }
  // TTFT rises over the sweep (prefill batches grow; queueing at the top).
  EXPECT_GT(pts[3].median_ttft_ms, pts[0].median_ttft_ms);
  EXPECT_GT(pts[6].median_ttft_ms, pts[3].median_ttft_ms * 0.8);
  EXPECT_GT(pts[9].median_ttft_ms, pts[6].median_ttft_ms);
  // Saturation: the last doubling gains much less than the first ones.
  double early_gain = pts[1].output_tok_s_per_gpu / pts[0].output_tok_s_per_gpu;
  double late_gain = pts[9].output_tok_s_per_gpu / pts[8].output_tok_s_per_gpu;
  EXPECT_GT(early_gain, 1.8);
  EXPECT_LT(late_gain, 1.5);
  // Interactivity falls.
  EXPECT_GT(pts[0].interactivity, 3 * pts[9].interactivity);
}

TEST(PredictTest, SpecDecodingHelpsMostAtLowConcurrency) {
  SimSettings base = Llama70bTp8H200();
  SimSettings spec = base;
  spec.spec.method = "eagle3";
  spec.spec.num_speculative_tokens = 3;
  spec.spec.synthetic_acceptance_length = 2.8;
  const std::vector<int> conc = {1, 16, 256};
  auto a = Sweep(base, conc), b = Sweep(spec, conc);
  std::vector<double> speedup;
  for (size_t i = 0; i < conc.size(); ++i)
    speedup.push_back(b[i].interactivity / a[i].interactivity);
  EXPECT_GT(speedup[0], 1.8) << "close to AL at batch 1";
  EXPECT_GT(speedup[0], speedup[1]);
  EXPECT_GT(speedup[1], speedup[2]);
  EXPECT_NEAR(b[0].acceptance_length, 2.8, 0.15);
}

TEST(PredictTest, SlowerBuildIsSlower) {
  SimSettings base = Llama70bTp8H200();
  SimSettings slow = base;
  slow.build_slowdown = 1.1;
  auto a = Sweep(base, {8}), b = Sweep(slow, {8});
  EXPECT_NEAR(b[0].median_tpot_ms / a[0].median_tpot_ms, 1.1, 0.01);
}

}  // namespace
}  // namespace servebench::sim

namespace servebench::sim {
namespace {

TEST(ResolvedConfigTest, GoldenTableGivesTheTargetAcceptanceLength) {
  SimSettings s;
  s.model = "minimax-m3";
  s.hardware = "b300";
  s.tensor_parallel_size = 4;
  s.spec.method = "eagle3";
  s.spec.num_speculative_tokens = 3;
  s.golden_al.table = "minimaxm3_eagle3_gqa";
  auto r = Resolve(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_DOUBLE_EQ(r->engine.target_acceptance_length, 2.78);  // engines.md §2 example
  s.golden_al.table = "no_such_table";
  EXPECT_FALSE(Resolve(s).ok());
}

TEST(ResolvedConfigTest, NoTargetMeansPerPositionAcceptanceOfPointSeven) {
  SimSettings s;
  s.spec.method = "eagle3";
  s.spec.num_speculative_tokens = 2;
  auto r = Resolve(s);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->engine.target_acceptance_length, 1 + 0.7 + 0.49, 1e-12);
}

}  // namespace
}  // namespace servebench::sim
