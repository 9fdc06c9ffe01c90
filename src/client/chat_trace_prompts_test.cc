// Chat prompts against a fake tokenizer (no sockets): a template of 5 head and 2 tail
// tokens, a word per token except " the" (two tokens), the cache-bust marker a token
// per 4 bytes. The sim-backed end-to-end checks are in trace_replay_sim_test.cc.
#include "client/chat_trace_prompts.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "common/testing/files.h"

namespace servebench::client {
namespace {

namespace json = boost::json;

// The tokens of one user message's content under the fake rule.
std::vector<int64_t> FakeContentTokens(std::string_view content) {
  std::vector<int64_t> out;
  if (content.starts_with("[rid:")) {
    const size_t end = content.find("\n\n") + 2;
    for (size_t i = 0; i < end; i += 4) out.push_back(7);
    content.remove_prefix(end);
  }
  size_t i = 0;
  while (i < content.size()) {
    const size_t next = content.find(' ', i + 1);
    const std::string_view word =
        content.substr(i, next == std::string_view::npos ? next : next - i);
    const int64_t id = static_cast<int64_t>(std::hash<std::string_view>{}(word) % 1000) + 100;
    out.push_back(id);
    if (word == " the") out.push_back(id + 1);
    if (next == std::string_view::npos) break;
    i = next;
  }
  return out;
}

ChatTokenizer FakeTokenizer(int* calls) {
  return [calls](const std::string& messages_json) -> std::optional<ChatTokenization> {
    ++*calls;
    const json::value messages = json::parse(messages_json);
    ChatTokenization t;
    t.tokens = {1, 2, 3, 4, 5};
    const std::vector<int64_t> content =
        FakeContentTokens(messages.as_array()[0].as_object().at("content").as_string());
    t.tokens.insert(t.tokens.end(), content.begin(), content.end());
    t.tokens.insert(t.tokens.end(), {8, 9});
    t.count = static_cast<int64_t>(t.tokens.size());
    return t;
  };
}

TEST(ChatTracePromptsTest, CalibrationKeepsOneTokenWordsAndMeasuresTheTemplate) {
  int calls = 0;
  auto cal = CalibrateChat(FakeTokenizer(&calls));
  ASSERT_TRUE(cal.ok()) << cal.status().ToString();
  EXPECT_EQ(cal->head_tokens, 5);
  EXPECT_EQ(cal->tail_tokens, 2);
  EXPECT_TRUE(cal->head_measured);
  EXPECT_FALSE(cal->words.empty());
  EXPECT_EQ(std::find(cal->words.begin(), cal->words.end(), " the"), cal->words.end());
  EXPECT_NE(std::find(cal->words.begin(), cal->words.end(), " of"), cal->words.end());
}

TEST(ChatTracePromptsTest, EveryPromptCountsItsInputLengthAndSharedIdsShareText) {
  const std::string path = servebench::testing::FreshTestDir("chat_prompts") + "/t.jsonl";
  std::ofstream(path)
      << R"({"session_id": "a", "timestamp": 0, "input_length": 100, "output_length": 3, "hash_ids": [1, 2]})"
      << "\n"
      << R"({"session_id": "a", "timestamp": 5, "input_length": 150, "output_length": 3, "hash_ids": [1, 2, 3]})"
      << "\n"
      << R"({"session_id": "b", "timestamp": 9, "input_length": 70, "output_length": 3, "hash_ids": [1]})"
      << "\n";
  BenchSettings s;
  s.model = "m";
  s.backend = "openai-chat";
  s.dataset_name = "mooncake_trace";
  s.dataset_path = path;
  s.trace_block_tokens = 32;
  auto w = LoadTraceWorkload(s);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  int calls = 0;
  ASSERT_TRUE(MakeChatTracePrompts(s, FakeTokenizer(&calls), 1, &*w).ok());
  const std::vector<Prompt>& p = w->prompts.measured;
  ASSERT_EQ(p.size(), 3u);
  int probe = 0;
  const ChatTokenizer count = FakeTokenizer(&probe);
  for (const Prompt& prompt : p) {
    json::array m;
    m.push_back(json::object{{"role", "user"}, {"content", prompt.text}});
    EXPECT_EQ(count(json::serialize(m))->count, prompt.prompt_tokens);
    EXPECT_TRUE(prompt.token_ids.empty());  // chat: text, not ids
  }
  EXPECT_EQ(p[0].prompt_tokens, 100);
  // Rows 0 and 1 share ids 1, 2: their first 64 − 5 content words are the same text.
  std::vector<std::string> w0, w1;
  for (const auto& [text, words] : {std::pair{&p[0].text, &w0}, std::pair{&p[1].text, &w1}}) {
    for (size_t i = 0; i < text->size();) {
      const size_t next = text->find(' ', i + 1);
      words->push_back(text->substr(i, next == std::string::npos ? next : next - i));
      if (next == std::string::npos) break;
      i = next;
    }
  }
  ASSERT_GE(w0.size(), 59u);
  EXPECT_EQ(std::vector<std::string>(w0.begin(), w0.begin() + 59),
            std::vector<std::string>(w1.begin(), w1.begin() + 59));
  EXPECT_NE(std::vector<std::string>(w0.begin() + 59, w0.begin() + 80),
            std::vector<std::string>(w1.begin() + 59, w1.begin() + 80));
}

TEST(ChatTracePromptsTest, ACacheBustMarksEveryTreeAndKeepsTheLengthExact) {
  const std::string path = servebench::testing::FreshTestDir("chat_prompts") + "/t.jsonl";
  std::ofstream(path)
      << R"({"timestamp": 0, "input_length": 64, "output_length": 3, "hash_ids": [1, 2]})"
      << "\n"
      << R"({"timestamp": 1, "input_length": 64, "output_length": 3, "hash_ids": [1, 2]})"
      << "\n";
  BenchSettings s;
  s.model = "m";
  s.backend = "openai-chat";
  s.dataset_name = "mooncake_trace";
  s.dataset_path = path;
  s.trace_block_tokens = 32;
  s.cache_bust = "first_turn_prefix";
  auto w = LoadTraceWorkload(s);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const uint64_t scope_before = w->trace.trees[0].scope;
  ASSERT_EQ(scope_before, w->trace.trees[1].scope);  // one file, one id space
  int calls = 0;
  ASSERT_TRUE(MakeChatTracePrompts(s, FakeTokenizer(&calls), 99, &*w).ok());
  const std::vector<Prompt>& p = w->prompts.measured;
  EXPECT_TRUE(p[0].text.starts_with("[rid:"));
  EXPECT_NE(p[0].text.substr(0, 20), p[1].text.substr(0, 20));  // a marker per tree
  // The marker makes each tree an id space of its own (for the expected-hit model).
  EXPECT_NE(w->trace.trees[0].scope, w->trace.trees[1].scope);
  int probe = 0;
  for (const Prompt& prompt : p) {
    json::array m;
    m.push_back(json::object{{"role", "user"}, {"content", prompt.text}});
    EXPECT_EQ(FakeTokenizer(&probe)(json::serialize(m))->count, 64);
  }
}

TEST(ChatTracePromptsTest, AServerThatCannotTokenizeMessagesIsAClearError) {
  const std::string path = servebench::testing::FreshTestDir("chat_prompts") + "/t.jsonl";
  std::ofstream(path) << R"({"timestamp": 0, "input_length": 64, "output_length": 3})"
                      << "\n";
  BenchSettings s;
  s.model = "m";
  s.backend = "openai-chat";
  s.dataset_name = "mooncake_trace";
  s.dataset_path = path;
  auto w = LoadTraceWorkload(s);
  ASSERT_TRUE(w.ok());
  const Status none = MakeChatTracePrompts(s, ChatTokenizer(), 1, &*w);
  EXPECT_NE(none.message().find("counts its prompts with the server's /tokenize of messages"),
            std::string::npos)
      << none.message();
  const Status failing = MakeChatTracePrompts(
      s, [](const std::string&) { return std::optional<ChatTokenization>(); }, 1, &*w);
  EXPECT_NE(failing.message().find("did not count an empty user message"), std::string::npos)
      << failing.message();
}

}  // namespace
}  // namespace servebench::client
