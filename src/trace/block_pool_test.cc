#include "trace/block_pool.h"

#include <gtest/gtest.h>

namespace servebench::trace {
namespace {

TEST(BlockPoolTest, AllocationTakesNeverUsedBlocksBeforeEvictingCachedOnes) {
  BlockPool pool(3);
  const int32_t a = *pool.Allocate();
  ASSERT_TRUE(pool.Register(a, 100));
  pool.Release(std::vector<int32_t>{a});
  EXPECT_EQ(pool.free_blocks(), 3);
  // Two never-used blocks sit ahead of the cached one in the free queue.
  pool.Allocate();
  pool.Allocate();
  EXPECT_TRUE(pool.Find(100).has_value());
  pool.Allocate();  // now the cached block is taken: its key is forgotten
  EXPECT_FALSE(pool.Find(100).has_value());
  EXPECT_FALSE(pool.Allocate().has_value());
}

TEST(BlockPoolTest, TailFirstReleaseEvictsARequestsLastBlockFirst) {
  BlockPool pool(2);
  const int32_t head = *pool.Allocate(), tail = *pool.Allocate();
  pool.Register(head, 1);
  pool.Register(tail, 2);
  pool.Release(std::vector<int32_t>{head, tail});
  pool.Allocate();
  EXPECT_TRUE(pool.Find(1).has_value());
  EXPECT_FALSE(pool.Find(2).has_value());
}

TEST(BlockPoolTest, TouchingACachedFreeBlockTakesItOffTheFreeQueue) {
  BlockPool pool(2);
  const int32_t a = *pool.Allocate();
  pool.Register(a, 7);
  pool.Release(std::vector<int32_t>{a});
  pool.Touch(*pool.Find(7));
  EXPECT_EQ(pool.free_blocks(), 1);
  pool.Allocate();
  EXPECT_FALSE(pool.Allocate().has_value());
  EXPECT_TRUE(pool.Find(7).has_value());  // in use: never evicted
}

TEST(BlockPoolTest, SharedBlocksReturnToTheQueueOnlyWhenTheLastUserReleasesThem) {
  BlockPool pool(1);
  const int32_t a = *pool.Allocate();
  pool.Register(a, 5);
  pool.Touch(a);  // a second request reuses it
  pool.Release(std::vector<int32_t>{a});
  EXPECT_EQ(pool.free_blocks(), 0);
  pool.Release(std::vector<int32_t>{a});
  EXPECT_EQ(pool.free_blocks(), 1);
}

TEST(BlockPoolTest, AKeyAlreadyCachedElsewhereIsNotRegisteredTwice) {
  BlockPool pool(2);
  const int32_t a = *pool.Allocate(), b = *pool.Allocate();
  EXPECT_TRUE(pool.Register(a, 9));
  EXPECT_FALSE(pool.Register(b, 9));
  EXPECT_EQ(*pool.Find(9), a);
  EXPECT_EQ(pool.cached_blocks(), 1);
}

}  // namespace
}  // namespace servebench::trace
