#include "sim/prefix_cache.h"

#include <gtest/gtest.h>

#include <numeric>

#include "sim/catalogue.h"
#include "sim/scheduler.h"

namespace servebench::sim {
namespace {

PerfModel MakePerf() {
  auto cat = Catalogue::BuiltIn();
  return *PerfModel::Create(cat->models.at("llama-3.1-8b"), cat->hardware.at("h100"),
                            cat->engines.at("vllm"), {});
}

SchedulerSettings Caching(int64_t blocks = 0) {
  SchedulerSettings s;
  s.block_size = 16;
  s.enable_prefix_caching = true;
  s.num_gpu_blocks_override = blocks;
  return s;
}

// Token ids first..first+n-1.
std::vector<uint32_t> Ids(uint32_t first, size_t n) {
  std::vector<uint32_t> ids(n);
  std::iota(ids.begin(), ids.end(), first);
  return ids;
}

std::vector<uint32_t> Concat(std::vector<uint32_t> a, const std::vector<uint32_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Runs `seq` to the end of its prefill alone and removes it (as the engine does when a
// one-token request finishes); returns the prefill tokens of its first step.
int RunPrefill(Scheduler* sched, Sequence* seq, const std::vector<uint32_t>& prompt) {
  seq->prompt_tokens = static_cast<int>(prompt.size());
  seq->block_keys = sched->prefix_cache()->BlockKeys(prompt);
  sched->Add(seq);
  int first = -1;
  while (true) {
    StepPlan plan = sched->Plan();
    if (plan.empty()) break;
    const int tokens = plan.work[0].prefill_tokens;
    if (first < 0) first = tokens;
    if (tokens == 0) break;
    sched->Commit(seq, tokens);
    seq->prefilled += tokens;
  }
  sched->Remove(seq);
  return first;
}

TEST(PrefixCacheTest, ASharedPrefixIsNotPrefilledAgain) {
  PerfModel perf = MakePerf();
  Scheduler sched(Caching(), &perf);
  const std::vector<uint32_t> prefix = Ids(1000, 64);
  Sequence a, b;
  a.id = 1;
  b.id = 2;
  EXPECT_EQ(RunPrefill(&sched, &a, Concat(prefix, Ids(5000, 36))), 100);
  EXPECT_EQ(RunPrefill(&sched, &b, Concat(prefix, Ids(7000, 36))), 36);
  EXPECT_EQ(sched.prefix_cache_queries(), 200);
  EXPECT_EQ(sched.prefix_cache_hits(), 64);
}

TEST(PrefixCacheTest, TheLastPromptTokenIsAlwaysComputed) {
  PerfModel perf = MakePerf();
  Scheduler sched(Caching(), &perf);
  const std::vector<uint32_t> prompt = Ids(1000, 64);
  Sequence a, b;
  a.id = 1;
  b.id = 2;
  RunPrefill(&sched, &a, prompt);
  // 64 tokens cached, but at most 63 may be reused, in whole blocks: 48.
  EXPECT_EQ(RunPrefill(&sched, &b, prompt), 16);
  EXPECT_EQ(sched.prefix_cache_hits(), 48);
}

TEST(PrefixCacheTest, ASmallPoolEvictsTheOldPrefix) {
  PerfModel perf = MakePerf();
  Scheduler sched(Caching(/*blocks=*/8), &perf);
  std::vector<Sequence> seqs(3);
  for (int i = 0; i < 3; ++i) seqs[i].id = i + 1;
  RunPrefill(&sched, &seqs[0], Ids(1000, 64));   // 4 blocks, cached
  RunPrefill(&sched, &seqs[1], Ids(3000, 128));  // 8 blocks: evicts all of the first
  EXPECT_EQ(RunPrefill(&sched, &seqs[2], Ids(1000, 80)), 80);
  EXPECT_EQ(sched.prefix_cache_hits(), 0);
}

TEST(PrefixCacheTest, UsageCountsBlocksInUseNotCachedFreeOnes) {
  PerfModel perf = MakePerf();
  Scheduler sched(Caching(/*blocks=*/10), &perf);
  Sequence a;
  a.id = 1;
  a.prompt_tokens = 40;
  a.block_keys = sched.prefix_cache()->BlockKeys(Ids(1, 40));
  sched.Add(&a);
  StepPlan plan = sched.Plan();
  ASSERT_EQ(plan.work.size(), 1u);
  EXPECT_DOUBLE_EQ(sched.kv_usage(), 0.3);  // ⌈40/16⌉ of 10 blocks
  sched.Commit(&a, 40);
  sched.Remove(&a);
  EXPECT_DOUBLE_EQ(sched.kv_usage(), 0.0);
  EXPECT_EQ(sched.prefix_cache()->num_blocks(), 10);
}

TEST(PrefixCacheTest, WithoutPrefixCachingNothingIsCountedOrReused) {
  PerfModel perf = MakePerf();
  SchedulerSettings s;
  Scheduler sched(s, &perf);
  EXPECT_EQ(sched.prefix_cache(), nullptr);
  Sequence a;
  a.id = 1;
  a.prompt_tokens = 100;
  sched.Add(&a);
  EXPECT_EQ(sched.Plan().work[0].prefill_tokens, 100);
  EXPECT_EQ(sched.prefix_cache_queries(), 0);
}

TEST(CpuKvTierTest, AFullTierDropsItsLeastRecentKeyAndATakenKeyLeaves) {
  CpuKvTier tier(2);
  tier.Store(1);
  tier.Store(2);
  tier.Store(1);  // 1 is the most recent now
  tier.Store(3);  // drops 2
  EXPECT_TRUE(tier.Contains(1));
  EXPECT_FALSE(tier.Contains(2));
  EXPECT_TRUE(tier.Contains(3));
  EXPECT_TRUE(tier.Take(1));
  EXPECT_FALSE(tier.Contains(1));
  EXPECT_FALSE(tier.Take(1));
  EXPECT_DOUBLE_EQ(tier.usage(), 0.5);
}

// Llama-3.1-8B in BF16 holds 2 × 32 layers × 8 KV heads × 128 × 2 bytes = 131,072
// bytes of KV per token on one GPU: a 16-token block is 2,097,152 bytes.
constexpr int64_t kBlockBytes = 16 * 131072;

TEST(PrefixCacheTest, AnEvictedPrefixIsCopiedBackFromTheCpuTierInsteadOfRecomputed) {
  PerfModel perf = MakePerf();
  SchedulerSettings settings = Caching(/*blocks=*/8);
  settings.kv_offload_gb = 9.5 * kBlockBytes / 1e9;  // 9 blocks of host memory
  Scheduler sched(settings, &perf);
  EXPECT_EQ(sched.cpu_blocks(), 9);
  std::vector<Sequence> seqs(3);
  for (int i = 0; i < 3; ++i) seqs[i].id = i + 1;
  RunPrefill(&sched, &seqs[0], Ids(1000, 64));   // 4 blocks, cached
  RunPrefill(&sched, &seqs[1], Ids(3000, 128));  // 8 blocks: the first 4 go to the CPU tier
  EXPECT_DOUBLE_EQ(sched.cpu_kv_usage(), 4.0 / 9);

  Sequence& again = seqs[2];
  const std::vector<uint32_t> prompt = Ids(1000, 80);
  again.prompt_tokens = 80;
  again.block_keys = sched.prefix_cache()->BlockKeys(prompt);
  sched.Add(&again);
  StepPlan plan = sched.Plan();
  ASSERT_EQ(plan.work.size(), 1u);
  EXPECT_EQ(plan.work[0].prefill_tokens, 16);  // the 64 cached tokens are not computed
  EXPECT_EQ(plan.shape.kv_load_bytes, 4 * kBlockBytes);
  // The step waits for the copy over the host link.
  StepShape no_copy = plan.shape;
  no_copy.kv_load_bytes = 0;
  EXPECT_NEAR(perf.StepSeconds(plan.shape) - perf.StepSeconds(no_copy),
              4.0 * kBlockBytes / (perf.settings().kv_offload_gb_per_s * 1e9), 1e-12);
  // vLLM's split: no GPU hit; the connector was asked for all 80 and had 64.
  EXPECT_EQ(sched.prefix_cache_hits(), 0);
  EXPECT_EQ(sched.external_prefix_cache_queries(), 64 + 128 + 80);
  EXPECT_EQ(sched.external_prefix_cache_hits(), 64);
  // The loaded blocks left the tier (exclusive tiers): the 4 evicted by the load are in.
  EXPECT_EQ(sched.prefix_cache()->cpu_tier()->used_blocks(), 4 + 1);
  const Scheduler::OffloadTotals t = sched.offload_totals();
  EXPECT_DOUBLE_EQ(t.bytes_cpu_to_gpu, 4.0 * kBlockBytes);
  EXPECT_DOUBLE_EQ(t.bytes_gpu_to_cpu, 9.0 * kBlockBytes);
}

TEST(PrefixCacheTest, WithoutACpuTierAnEvictedPrefixIsRecomputed) {
  PerfModel perf = MakePerf();
  Scheduler sched(Caching(/*blocks=*/8), &perf);
  EXPECT_EQ(sched.cpu_blocks(), 0);
  std::vector<Sequence> seqs(3);
  for (int i = 0; i < 3; ++i) seqs[i].id = i + 1;
  RunPrefill(&sched, &seqs[0], Ids(1000, 64));
  RunPrefill(&sched, &seqs[1], Ids(3000, 128));
  EXPECT_EQ(RunPrefill(&sched, &seqs[2], Ids(1000, 80)), 80);
  EXPECT_EQ(sched.external_prefix_cache_hits(), 0);
  EXPECT_EQ(sched.offload_totals().bytes_cpu_to_gpu, 0);
}

}  // namespace
}  // namespace servebench::sim
