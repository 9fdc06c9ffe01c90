#include "client/dataset.h"

#include <gtest/gtest.h>

namespace servebench::client {
namespace {

BenchSettings Base() {
  BenchSettings s;
  s.model = "m";
  s.num_prompts = 4;
  s.num_warmups = 2;
  s.random_input_len = 100;
  s.random_output_len = 20;
  return s;
}

TEST(DatasetTest, RandomCompletionsPromptsAreTokenIdsOfExactLength) {
  auto set = MakePrompts(Base(), /*chat=*/false, {});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_EQ(set->measured.size(), 4u);
  ASSERT_EQ(set->warmups.size(), 2u);
  for (const Prompt& p : set->measured) {
    EXPECT_EQ(p.token_ids.size(), 100u);
    EXPECT_EQ(p.prompt_tokens, 100);
    EXPECT_EQ(p.max_tokens, 20);
  }
  EXPECT_NE(set->warmups[0].token_ids, set->measured[0].token_ids);
}

TEST(DatasetTest, SharedPrefixIsTheSameForEveryPrompt) {
  BenchSettings s = Base();
  s.random_prefix_len = 10;
  auto set = MakePrompts(s, false, {});
  ASSERT_TRUE(set.ok());
  auto prefix = [](const Prompt& p) {
    return std::vector<int32_t>(p.token_ids.begin(), p.token_ids.begin() + 10);
  };
  EXPECT_EQ(prefix(set->measured[0]), prefix(set->measured[3]));
  EXPECT_EQ(set->measured[0].prompt_tokens, 110);
}

TEST(DatasetTest, RangeRatioSemanticsDiffer) {
  for (uint64_t bits = 0; bits < 1000; bits += 7) {
    int64_t v = SampleLength(1000, 0.1, RangeRatioSemantics::kVllm, bits);
    EXPECT_GE(v, 900);
    EXPECT_LE(v, 1100);
    int64_t x = SampleLength(1000, 0.8, RangeRatioSemantics::kInferenceX, bits);
    EXPECT_GE(x, 800);
    EXPECT_LE(x, 1000);
  }
  EXPECT_EQ(SampleLength(1000, 1.0, RangeRatioSemantics::kInferenceX, 12345), 1000);
}

TEST(DatasetTest, ChatTextIsFittedWithTheServersTokenCount) {
  // A fake tokenizer: two tokens per word.
  TokenCounter count = [](const std::string& text) -> std::optional<int64_t> {
    int64_t words = text.empty() ? 0 : 1;
    for (char c : text) words += c == ' ';
    return words * 2;
  };
  auto set = MakePrompts(Base(), /*chat=*/true, count);
  ASSERT_TRUE(set.ok());
  for (const Prompt& p : set->measured) {
    EXPECT_EQ(p.prompt_tokens, 100);
    EXPECT_TRUE(p.prompt_tokens_exact);
  }
}

TEST(DatasetTest, CustomJsonlAndShareGptFilesAreRead) {
  BenchSettings s = Base();
  s.dataset_name = "custom";
  s.dataset_path = SERVEBENCH_SOURCE_DIR "/src/client/testdata/custom.jsonl";
  auto c = MakePrompts(s, true, {});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->measured.size(), 4u);  // 3 rows reused cyclically
  EXPECT_NE(c->note.find("cyclically"), std::string::npos);
  s.dataset_name = "sharegpt";
  s.dataset_path = SERVEBENCH_SOURCE_DIR "/src/client/testdata/sharegpt.json";
  auto g = MakePrompts(s, true, {});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  for (const Prompt& p : g->measured) EXPECT_FALSE(p.text.empty());
}

TEST(DatasetTest, MalformedCustomLineNamesFileAndLine) {
  BenchSettings s = Base();
  s.dataset_name = "custom";
  s.dataset_path = SERVEBENCH_SOURCE_DIR "/src/client/testdata/sharegpt.json";
  auto c = MakePrompts(s, true, {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("sharegpt.json:1"), std::string::npos);
}

}  // namespace
}  // namespace servebench::client
