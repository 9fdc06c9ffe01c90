#include "sim/scheduler.h"

#include <gtest/gtest.h>

#include "sim/catalogue.h"

namespace servebench::sim {
namespace {

class SchedulerTest : public ::testing::Test {
 protected:
  // Llama-3.1-8B BF16 on one H100 with a memory fraction chosen so the KV pool
  // holds a known, small number of tokens.
  PerfModel MakePerf(double gpu_memory_utilization) {
    auto cat = Catalogue::BuiltIn();
    PerfSettings s;
    s.gpu_memory_utilization = gpu_memory_utilization;
    return *PerfModel::Create(cat->models.at("llama-3.1-8b"), cat->hardware.at("h100"),
                              cat->engines.at("vllm"), s);
  }
};

TEST_F(SchedulerTest, ChunkedPrefillRespectsTheTokenBudget) {
  PerfModel perf = MakePerf(0.9);
  SchedulerSettings s;
  s.max_num_batched_tokens = 1000;
  Scheduler sched(s, &perf);
  Sequence a;
  a.id = 1;
  a.prompt_tokens = 2500;
  sched.Add(&a);
  StepPlan p1 = sched.Plan();
  ASSERT_EQ(p1.work.size(), 1u);
  EXPECT_EQ(p1.work[0].prefill_tokens, 1000);
  sched.Commit(&a, 1000);
  a.prefilled += 1000;
  StepPlan p2 = sched.Plan();
  EXPECT_EQ(p2.work[0].prefill_tokens, 1000);
  EXPECT_EQ(p2.shape.prefill_tokens, 1000);
}

TEST_F(SchedulerTest, MaxNumSeqsCapsTheBatch) {
  PerfModel perf = MakePerf(0.9);
  SchedulerSettings s;
  s.max_num_seqs = 2;
  Scheduler sched(s, &perf);
  std::vector<Sequence> seqs(3);
  for (int i = 0; i < 3; ++i) {
    seqs[i].id = i + 1;
    seqs[i].prompt_tokens = 10;
    sched.Add(&seqs[i]);
  }
  StepPlan p = sched.Plan();
  EXPECT_EQ(p.work.size(), 2u);
  EXPECT_EQ(sched.running(), 2);
  EXPECT_EQ(sched.waiting(), 1);
}

TEST_F(SchedulerTest, AdmissionWaitsForKvAndPreemptionFreesIt) {
  PerfModel perf = MakePerf(0.9);
  SchedulerSettings s;
  s.max_num_batched_tokens = 1 << 20;
  Scheduler sched(s, &perf);
  const int64_t pool_tokens = sched.pool_bytes() / perf.KvBytesPerGpu(1);
  // Two sequences that together need more than the pool.
  Sequence a, b;
  a.id = 1;
  a.prompt_tokens = static_cast<int>(pool_tokens * 0.6);
  b.id = 2;
  b.prompt_tokens = static_cast<int>(pool_tokens * 0.6);
  sched.Add(&a);
  sched.Add(&b);
  StepPlan p = sched.Plan();
  ASSERT_EQ(p.work.size(), 1u) << "the second does not fit";
  EXPECT_EQ(sched.waiting(), 1);
  EXPECT_GT(sched.kv_usage(), 0.5);
  sched.Remove(&a);
  StepPlan q = sched.Plan();
  ASSERT_EQ(q.work.size(), 1u);
  EXPECT_EQ(q.work[0].seq, &b);
}

TEST_F(SchedulerTest, DecodeGrowthPreemptsTheNewestSequence) {
  PerfModel perf = MakePerf(0.9);
  SchedulerSettings s;
  s.max_num_batched_tokens = 1 << 20;
  s.block_size = 16;
  Scheduler sched(s, &perf);
  const int64_t pool_tokens = sched.pool_bytes() / perf.KvBytesPerGpu(1);
  Sequence a, b;
  a.id = 1;
  b.id = 2;
  // Both fit exactly (block-aligned), with no block to spare.
  a.prompt_tokens = static_cast<int>(pool_tokens / 2 / 16 * 16);
  b.prompt_tokens = a.prompt_tokens;
  sched.Add(&a);
  sched.Add(&b);
  StepPlan p = sched.Plan();
  ASSERT_EQ(p.work.size(), 2u);
  for (auto* q : {&a, &b}) {
    sched.Commit(q, q->prompt_tokens);
    q->prefilled = q->prompt_tokens;
    q->generated = 1;
  }
  // Now both decode; growing past the block boundary needs blocks that are not there.
  StepPlan d = sched.Plan();
  ASSERT_EQ(d.preempted.size(), 1u);
  EXPECT_EQ(d.preempted[0], &b);
  EXPECT_EQ(sched.preemptions_total(), 1);
  EXPECT_EQ(b.prefill_target, b.prompt_tokens + 1) << "recompute prompt + generated";
}

}  // namespace
}  // namespace servebench::sim
