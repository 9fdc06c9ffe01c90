#include "trace/expected_hits.h"

#include <gtest/gtest.h>

namespace servebench::trace {
namespace {

// A request of §5's examples: one token per block, so trace blocks are engine blocks;
// one output token, so the request holds exactly its prompt's blocks.
TraceTurn Turn(int64_t input_tokens, int64_t output_tokens, std::vector<uint64_t> ids) {
  TraceTurn turn;
  turn.input_tokens = input_tokens;
  turn.output_tokens = output_tokens;
  turn.hash_ids = std::move(ids);
  return turn;
}

TraceTurn Req(std::vector<uint64_t> ids) {
  const auto n = static_cast<int64_t>(ids.size());
  return Turn(n, 1, std::move(ids));
}

ExpectedHitSettings EngineBlocks(int64_t tokens) {
  ExpectedHitSettings s;
  s.engine_block_tokens = tokens;
  return s;
}

HitTally Sequential(const ExpectedHitSettings& settings, const std::vector<TraceTurn>& turns) {
  PrefixHitModel model(settings);
  for (const TraceTurn& turn : turns) model.Finish(model.Start(/*scope=*/1, turn, 1).handle);
  return model.tally();
}

ExpectedHitSettings OneTokenBlocks(int64_t capacity,
                                   ReleaseOrder order = ReleaseOrder::kTailFirst) {
  ExpectedHitSettings s;
  s.engine_block_tokens = 1;
  s.capacity_blocks = capacity;
  s.release_order = order;
  return s;
}

TEST(ExpectedHitsTest, InfiniteCacheOfOneGrowingConversationIsFiveNinths) {
  const HitTally t =
      Sequential(OneTokenBlocks(0), {Req({1, 2}), Req({1, 2, 3}), Req({1, 2, 3, 4})});
  EXPECT_EQ(t.hit_trace_blocks, 5);
  EXPECT_EQ(t.trace_blocks, 9);
  EXPECT_NEAR(t.block_fraction(), 5.0 / 9.0, 1e-12);
  // vLLM's N − 1 lookup cap costs nothing here: each hit stops short of the last token.
  EXPECT_NEAR(t.token_fraction(), 5.0 / 9.0, 1e-12);
}

const std::vector<TraceTurn> kInterleaved = {Req({1, 2}), Req({7, 8}), Req({1, 2, 3}),
                                             Req({7, 8, 9})};

TEST(ExpectedHitsTest, LruOfFourBlocksWithTailFirstReleaseIsThirtyPercent) {
  const HitTally t = Sequential(OneTokenBlocks(4), kInterleaved);
  EXPECT_EQ(t.hit_tokens, 3);
  EXPECT_EQ(t.prompt_tokens, 10);
  EXPECT_EQ(t.not_admitted, 0);
}

TEST(ExpectedHitsTest, PlainLruWithForwardReleaseIsTwentyPercent) {
  const HitTally t = Sequential(OneTokenBlocks(4, ReleaseOrder::kForward), kInterleaved);
  EXPECT_EQ(t.hit_tokens, 2);
  EXPECT_EQ(t.prompt_tokens, 10);
}

TEST(ExpectedHitsTest, InfiniteCacheOfTheInterleavedTracesIsFortyPercent) {
  const HitTally t = Sequential(OneTokenBlocks(0), kInterleaved);
  EXPECT_EQ(t.hit_tokens, 4);
  EXPECT_EQ(t.hit_trace_blocks, 4);
  EXPECT_NEAR(t.token_fraction(), 0.4, 1e-12);
}

TEST(ExpectedHitsTest, EngineHitsAreWholeEngineBlocksOfAtMostNMinusOneTokens) {
  // Mooncake blocks of 512, engine blocks of 16: the second prompt repeats the first
  // 1024 tokens exactly.
  PrefixHitModel model(EngineBlocks(16));
  const TraceTurn a = Turn(1024, 10, {0, 1});
  const TraceTurn b = Turn(2000, 10, {0, 1, 2, 3});
  EXPECT_EQ(model.Start(1, a, 512).hit_tokens, 0);
  EXPECT_EQ(model.Start(1, b, 512).hit_tokens, 1024);
  // The same prompt again: everything but the last token may hit, in whole blocks.
  EXPECT_EQ(model.Start(1, a, 512).hit_tokens, 1008);
}

TEST(ExpectedHitsTest, EngineBlocksLargerThanTraceBlocksLoseThePartialEngineBlock) {
  PrefixHitModel model(EngineBlocks(128));
  const TraceTurn a = Turn(320, 1, {0, 1, 2, 3, 4});
  const TraceTurn b = Turn(320, 1, {0, 1, 2, 9, 10});
  model.Start(1, a, 64);
  // 3 shared trace blocks = 192 tokens, of which one whole 128-token engine block.
  const PrefixHitModel::Admission hit = model.Start(1, b, 64);
  EXPECT_EQ(hit.hit_trace_blocks, 3);
  EXPECT_EQ(hit.hit_tokens, 128);
}

TEST(ExpectedHitsTest, ScopesDoNotShareBlocks) {
  PrefixHitModel model(OneTokenBlocks(0));
  model.Start(1, Req({1, 2, 3}), 1);
  EXPECT_EQ(model.Start(2, Req({1, 2, 3}), 1).hit_tokens, 0);
  EXPECT_EQ(model.Start(1, Req({1, 2, 3}), 1).hit_tokens, 2);
}

TEST(ExpectedHitsTest, PinnedBlocksOfARunningRequestAreNotEvicted) {
  PrefixHitModel model(OneTokenBlocks(4));
  const auto first = model.Start(1, Req({1, 2}), 1);  // held: 2 of 4 blocks
  const auto second = model.Start(1, Req({5, 6, 7}), 1);
  EXPECT_FALSE(second.admitted);  // 3 blocks needed, 2 free, none evictable
  EXPECT_EQ(model.tally().not_admitted, 1);
  model.Finish(first.handle);
  EXPECT_TRUE(model.Start(1, Req({5, 6, 7}), 1).admitted);
}

TEST(ExpectedHitsTest, TimestampOrderDecidesWhatTheLruKeeps) {
  Trace trace;
  trace.block_size_tokens = 1;
  auto tree = [](uint64_t scope, std::vector<std::pair<int64_t, TraceTurn>> turns) {
    TraceTree t;
    t.scope = scope;
    t.conversations.push_back({});
    for (auto& [ms, turn] : turns) {
      turn.timestamp_ms = ms;
      t.conversations[0].turns.push_back(turn);
    }
    return t;
  };
  // A at 0 and 20 ms, B at 10 and 30 ms: the §5 order A0, B0, A1, B1.
  trace.trees.push_back(tree(1, {{0, Req({1, 2})}, {20, Req({1, 2, 3})}}));
  trace.trees.push_back(tree(1, {{10, Req({7, 8})}, {30, Req({7, 8, 9})}}));
  EXPECT_EQ(ExpectedHitsInTimestampOrder(trace, OneTokenBlocks(4)).hit_tokens, 3);
  EXPECT_EQ(ExpectedHitsInTimestampOrder(trace, OneTokenBlocks(0)).hit_tokens, 4);
}

}  // namespace
}  // namespace servebench::trace
