#include "common/splitmix64.h"

#include <gtest/gtest.h>

namespace servebench {
namespace {

// Reference outputs of the published algorithms: a change here would change every
// synthetic prompt, dataset and random-weight model servebench generates.
TEST(SplitMix64Test, MatchesTheReferenceStream) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.Next(), 0xe220a8397b1dcdafull);
  EXPECT_EQ(rng.Next(), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(rng.Next(), 0x06c45d188009454full);
}

TEST(SplitMix64Test, FinalizeIsTheStepWithoutTheIncrement) {
  SplitMix64 rng(41);
  EXPECT_EQ(rng.Next(), SplitMix64Finalize(41 + kSplitMix64Gamma));
}

TEST(Fnv1a64Test, MatchesTheReferenceValues) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ull);
  // Continuing from a hash is hashing the concatenation.
  EXPECT_EQ(Fnv1a64("bar", Fnv1a64("foo")), Fnv1a64("foobar"));
}

}  // namespace
}  // namespace servebench
