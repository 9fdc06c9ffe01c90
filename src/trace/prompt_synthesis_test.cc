#include "trace/prompt_synthesis.h"

#include <gtest/gtest.h>

#include <set>

namespace servebench::trace {
namespace {

std::vector<int32_t> Slice(const std::vector<int32_t>& v, size_t from, size_t n) {
  return {v.begin() + static_cast<std::ptrdiff_t>(from),
          v.begin() + static_cast<std::ptrdiff_t>(from + n)};
}

PromptSynthesisSettings Seeded(uint64_t seed, int64_t vocab_size = 32000) {
  PromptSynthesisSettings s;
  s.seed = seed;
  s.vocab_size = vocab_size;
  return s;
}

const PromptSynthesisSettings kSettings = Seeded(42);

TEST(PromptSynthesisTest, SharedIdsGiveIdenticalTokenBlocks) {
  const auto a = SynthesizePrompt(kSettings, 1, std::vector<uint64_t>{0, 1, 2}, 1536, 512, 1);
  const auto b = SynthesizePrompt(kSettings, 1, std::vector<uint64_t>{0, 1, 7, 8}, 2048, 512, 2);
  EXPECT_EQ(Slice(a, 0, 1024), Slice(b, 0, 1024));
  EXPECT_NE(Slice(a, 1024, 512), Slice(b, 1024, 512));
}

TEST(PromptSynthesisTest, AnIdIsTheSameBlockWhereverItAppears) {
  const auto a = SynthesizePrompt(kSettings, 1, std::vector<uint64_t>{5, 6}, 128, 64, 1);
  const auto b = SynthesizePrompt(kSettings, 1, std::vector<uint64_t>{6}, 64, 64, 2);
  EXPECT_EQ(Slice(a, 64, 64), b);
}

TEST(PromptSynthesisTest, LengthIsExactInEveryLayout) {
  // No ids; a cut last block (Mooncake: ⌈1000/512⌉ = 2 ids); ids then fresh (Weka).
  EXPECT_EQ(SynthesizePrompt(kSettings, 1, {}, 77, 512, 1).size(), 77u);
  EXPECT_EQ(SynthesizePrompt(kSettings, 1, std::vector<uint64_t>{0, 1}, 1000, 512, 1).size(),
            1000u);
  EXPECT_EQ(SynthesizePrompt(kSettings, 1, std::vector<uint64_t>{0, 1}, 200, 64, 1).size(), 200u);
}

TEST(PromptSynthesisTest, ACutLastBlockIsThatIdsFirstTokens) {
  const auto full = SynthesizePrompt(kSettings, 1, std::vector<uint64_t>{3}, 512, 512, 1);
  const auto cut = SynthesizePrompt(kSettings, 1, std::vector<uint64_t>{3}, 100, 512, 2);
  EXPECT_EQ(cut, Slice(full, 0, 100));
}

TEST(PromptSynthesisTest, FreshTokensAreSharedByNobody) {
  const std::vector<uint64_t> ids{0};
  const auto a = SynthesizePrompt(kSettings, 1, ids, 128, 64, /*fresh_key=*/1);
  const auto b = SynthesizePrompt(kSettings, 1, ids, 128, 64, /*fresh_key=*/2);
  EXPECT_EQ(Slice(a, 0, 64), Slice(b, 0, 64));
  EXPECT_NE(Slice(a, 64, 64), Slice(b, 64, 64));
}

TEST(PromptSynthesisTest, ScopesAndSeedsSeparateEqualIds) {
  const std::vector<uint64_t> ids{0, 1};
  const auto base = SynthesizePrompt(kSettings, 1, ids, 128, 64, 1);
  EXPECT_NE(SynthesizePrompt(kSettings, 2, ids, 128, 64, 1), base);
  EXPECT_NE(SynthesizePrompt(Seeded(43), 1, ids, 128, 64, 1), base);
  EXPECT_EQ(SynthesizePrompt(kSettings, 1, ids, 128, 64, 1), base);  // deterministic
}

TEST(PromptSynthesisTest, TokenIdsStayInsideTheVocabularyAboveTheSpecialTokens) {
  const auto tokens =
      SynthesizePrompt(Seeded(1, 300), 1, std::vector<uint64_t>{0, 1, 2}, 4096, 1024, 1);
  std::set<int32_t> distinct(tokens.begin(), tokens.end());
  EXPECT_GE(*distinct.begin(), 100);
  EXPECT_LT(*distinct.rbegin(), 300);
  EXPECT_GT(distinct.size(), 150u);  // spread over the range, not a constant
}

TEST(PromptSynthesisTest, LayoutRejectsIdsThatCannotFitTheLength) {
  auto bad = LayOutPrompt(/*input_tokens=*/1000, /*block_tokens=*/512, /*num_ids=*/3);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("last block would hold -24 tokens"), std::string::npos)
      << bad.status().message();
  auto cut = LayOutPrompt(1000, 512, 2);
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->last_block_tokens, 488);
  EXPECT_EQ(cut->fresh_tokens, 0);
  auto weka = LayOutPrompt(200, 64, 2);
  ASSERT_TRUE(weka.ok());
  EXPECT_EQ(weka->fresh_tokens, 72);
}

}  // namespace
}  // namespace servebench::trace
