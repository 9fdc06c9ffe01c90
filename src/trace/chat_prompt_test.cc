#include "trace/chat_prompt.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace servebench::trace {
namespace {

const std::vector<std::string> kWords = {" a", " b", " c", " d", " e", " f", " g", " h"};

ChatPromptLayout Layout(int64_t head, int64_t tail) {
  ChatPromptLayout layout;
  layout.seed = 7;
  layout.words = kWords;
  layout.head_tokens = head;
  layout.tail_tokens = tail;
  return layout;
}

// The content's words (each word is one token: " x").
std::vector<std::string> Words(const std::string& content) {
  std::vector<std::string> out;
  for (size_t i = 0; i < content.size(); i += 2) out.push_back(content.substr(i, 2));
  return out;
}

TEST(ChatPromptTest, TheContentFillsEveryPositionBetweenTheTemplatesHeadAndTail) {
  const std::vector<uint64_t> ids = {1, 2, 3};
  auto content = ChatContent(Layout(4, 3), 0, ids, 100, 16, 0, "");
  ASSERT_TRUE(content.ok()) << content.status().ToString();
  EXPECT_EQ(Words(*content).size(), 100u - 4 - 3);
  // A correction adds or drops words at the end only.
  auto longer = ChatContent(Layout(4, 3), 0, ids, 100, 16, 0, "", 2);
  ASSERT_TRUE(longer.ok());
  EXPECT_EQ(Words(*longer).size(), 95u);
  EXPECT_EQ(longer->substr(0, content->size()), *content);
}

TEST(ChatPromptTest, EqualIdsAreIdenticalWordsAtIdenticalPositions) {
  // Two turns sharing ids 1, 2 (32 tokens) and differing after.
  auto a = ChatContent(Layout(4, 3), 9, std::vector<uint64_t>{1, 2, 3}, 60, 16, 0, "");
  auto b = ChatContent(Layout(4, 3), 9, std::vector<uint64_t>{1, 2, 5, 6}, 80, 16, 1, "");
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<std::string> wa = Words(*a), wb = Words(*b);
  // Position p of the prompt is word p − 4 of the content: ids 1, 2 cover p < 32.
  for (size_t p = 4; p < 32; ++p) EXPECT_EQ(wa[p - 4], wb[p - 4]) << p;
  size_t same = 0;
  for (size_t p = 32; p < 48; ++p) same += wa[p - 4] == wb[p - 4];
  EXPECT_LT(same, 8u);  // id 3 vs id 5: unrelated words (1 in 8 agree by chance)
  // Another scope (another Weka trajectory, a cache-busted tree) shares nothing.
  auto c = ChatContent(Layout(4, 3), 10, std::vector<uint64_t>{1, 2, 3}, 60, 16, 0, "");
  ASSERT_TRUE(c.ok());
  EXPECT_NE(*a, *c);
}

TEST(ChatPromptTest, TheMarkerComesFirstAndTheRunIdChangesIt) {
  const std::string marker = CacheBustMarker(42, 3);
  EXPECT_EQ(marker.size(), std::string("[rid:").size() + 12 + 3);
  EXPECT_EQ(marker.substr(0, 5), "[rid:");
  EXPECT_EQ(marker.substr(marker.size() - 3), "]\n\n");
  EXPECT_NE(marker, CacheBustMarker(43, 3));  // another run
  EXPECT_NE(marker, CacheBustMarker(42, 4));  // another tree
  auto content = ChatContent(Layout(10, 3), 0, std::vector<uint64_t>{1}, 40, 16, 0, marker);
  ASSERT_TRUE(content.ok());
  EXPECT_EQ(content->substr(0, marker.size()), marker);
  EXPECT_EQ(Words(content->substr(marker.size())).size(), 40u - 10 - 3);
}

TEST(ChatPromptTest, APromptShorterThanTheTemplateIsAClearError) {
  auto content = ChatContent(Layout(4, 3), 0, std::vector<uint64_t>{}, 7, 16, 0, "");
  ASSERT_FALSE(content.ok());
  EXPECT_EQ(content.status().message(),
            "input_length 7 leaves no room for content: the chat template takes 7 tokens (must "
            "be at least 8)");
}

}  // namespace
}  // namespace servebench::trace
