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

}  // namespace
}  // namespace servebench::sim
