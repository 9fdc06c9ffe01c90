#include "sim/tokenizer.h"

#include <gtest/gtest.h>

namespace servebench::sim {
namespace {

TEST(TokenizerTest, PiecesFollowTheDocumentedRule) {
  Tokenizer tok;
  auto p = tok.Pieces("Hello, wonderful world 12345\n\nok");
  std::vector<std::string> got(p.begin(), p.end());
  // "Hello" | "," | " wonder" (6 letters) | "ful" | " world" | " 123" | "45" | "\n\n" | "ok"
  EXPECT_EQ(got, (std::vector<std::string>{"Hello", ",", " wonder", "ful", " world", " 123", "45",
                                           "\n\n", "ok"}));
  EXPECT_EQ(tok.Count("Hello, wonderful world 12345\n\nok"), 9u);
}

TEST(TokenizerTest, PiecesConcatenateToTheInput) {
  Tokenizer tok;
  std::string text = "  two  spaces, tabs\tand émojis 😀 end ";
  std::string joined;
  for (auto piece : tok.Pieces(text)) joined += piece;
  EXPECT_EQ(joined, text);
}

TEST(TokenizerTest, GeneratedTextRetokenizesToTheSameCount) {
  Tokenizer tok(200064);
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 5000; ++i) ids.push_back(i * 40 + 7);
  std::string text = tok.Decode(ids);
  EXPECT_EQ(tok.Count(text), ids.size());
}

TEST(TokenizerTest, EncodeIsDeterministicAndInVocabulary) {
  Tokenizer tok(1000);
  auto a = tok.Encode("same text, same ids");
  auto b = tok.Encode("same text, same ids");
  EXPECT_EQ(a, b);
  for (uint32_t id : a) EXPECT_LT(id, 1000u);
}

}  // namespace
}  // namespace servebench::sim
