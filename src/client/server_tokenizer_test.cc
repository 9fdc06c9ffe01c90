// ServerTokenizer against the in-test fake server: each engine's /tokenize shape is
// found by probing, and a 0 count for a non-empty text is never a count.
#include "client/server_tokenizer.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "client/client.h"
#include "net/testing/fake_openai_server.h"

namespace servebench::client {
namespace {

using net::testing::FakeOpenAiServer;
using net::testing::FakeServerOptions;

net::Url UrlOf(const FakeOpenAiServer& server) { return net::ParseUrl(server.base_url()).value(); }

TEST(ParseTokenizeCountTest, CountFieldWinsOverTokens) {
  EXPECT_EQ(ParseTokenizeCount(R"({"count": 3, "tokens": [1]})", "a b c"), 3);
  EXPECT_EQ(ParseTokenizeCount(R"({"tokens": [1, 2]})", "a b"), 2);
}

TEST(ParseTokenizeCountTest, ZeroForNonEmptyTextIsNotACount) {
  EXPECT_EQ(ParseTokenizeCount(R"({"tokens": []})", "hello world"), std::nullopt);
  EXPECT_EQ(ParseTokenizeCount(R"({"count": 0})", "hello world"), std::nullopt);
  EXPECT_EQ(ParseTokenizeCount(R"({"tokens": []})", ""), 0);
}

TEST(ParseTokenizeCountTest, AnythingElseIsNotACount) {
  EXPECT_EQ(ParseTokenizeCount("not json", "x"), std::nullopt);
  EXPECT_EQ(ParseTokenizeCount(R"({"n": 3})", "x"), std::nullopt);
  EXPECT_EQ(ParseTokenizeCount(R"({"count": -1})", "x"), std::nullopt);
}

TEST(ServerTokenizerTest, VllmShapeIsFoundFirst) {
  FakeServerOptions o;
  o.tokenize = "vllm";
  FakeOpenAiServer server(o);
  ServerTokenizer t = ProbeServerTokenizer(UrlOf(server), "fake", {});
  ASSERT_TRUE(t.count);
  EXPECT_EQ(t.shape->name, "vllm");
  EXPECT_EQ(t.count("one two three"), 3);
}

// llama-server answers {"prompt": ...} with 200 {"tokens": []}: the probe must not
// take that for a count, and must find {"content": ...}.
TEST(ServerTokenizerTest, LlamaCppShapeIsFoundPastItsEmptyAnswerToThePromptShape) {
  FakeServerOptions o;
  o.tokenize = "llamacpp";
  FakeOpenAiServer server(o);
  ServerTokenizer t = ProbeServerTokenizer(UrlOf(server), "fake", {});
  ASSERT_TRUE(t.count);
  EXPECT_EQ(t.shape->name, "llamacpp");
  EXPECT_EQ(t.count("one two three four"), 4);
  EXPECT_NE(t.note.find("content"), std::string::npos) << t.note;
}

TEST(ServerTokenizerTest, ServerWithoutTokenizeGivesNoCounter) {
  FakeOpenAiServer server(FakeServerOptions{});
  ServerTokenizer t = ProbeServerTokenizer(UrlOf(server), "fake", {});
  EXPECT_FALSE(t.count);
  EXPECT_EQ(t.shape, nullptr);
  EXPECT_FALSE(t.note.empty());
}

// Text prompts (a custom dataset) are counted by the server in its own shape.
TEST(ServerTokenizerTest, BenchCountsTextPromptsWithTheLlamaCppShape) {
  FakeServerOptions o;
  o.tokenize = "llamacpp";
  FakeOpenAiServer server(o);
  BenchSettings b;
  b.base_url = server.base_url();
  b.model = "fake";
  b.dataset_name = "custom";
  b.dataset_path = std::string(SERVEBENCH_SOURCE_DIR) + "/src/client/testdata/custom.jsonl";
  b.num_prompts = 3;
  b.custom_output_len = 4;
  b.client_issue_delay_limit_ms = 1e9;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->summary.completed, 3);
  // The file's three prompts (shuffled) have 5, 6 and 4 words: the fake's count.
  std::vector<int64_t> counts;
  for (const auto& rec : r->records) counts.push_back(rec.client_prompt_tokens);
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<int64_t>{4, 5, 6}));
  std::string note(r->result.at("servebench").at("run").at("server_tokenizer").as_string());
  EXPECT_NE(note.find("llamacpp"), std::string::npos) << note;
}

}  // namespace
}  // namespace servebench::client
