// The chat-message trace formats: AIPerf dag_jsonl and vLLM multi_turn.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "common/testing/files.h"
#include "trace/trace_loader.h"

namespace servebench::trace {
namespace {

namespace json = boost::json;

const std::string kTestdata = SERVEBENCH_SOURCE_DIR "/src/trace/testdata";

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = servebench::testing::FreshTestDir("trace_text") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string LoadError(const std::string& path, std::optional<TraceFormat> format) {
  TraceLoadOptions options;
  options.format = format;
  auto trace = LoadTrace(path, options);
  return trace.ok() ? "(loaded)" : trace.status().message();
}

// The contents of the messages a turn sends, in order.
std::vector<std::string> Contents(const TraceTurn& turn) {
  std::vector<std::string> out;
  const json::value messages = json::parse(turn.messages_json);
  for (const json::value& m : messages.as_array()) {
    out.emplace_back(m.as_object().at("content").as_string());
  }
  return out;
}

// A turn's live history (TraceTurn::live_messages): contents of authored messages, and
// "<reply c.k>" where the server's reply to turn k of conversation c goes.
std::vector<std::string> LiveLayout(const TraceTurn& turn) {
  std::vector<std::string> out;
  for (const LivePiece& piece : turn.live_messages) {
    if (piece.is_reply()) {
      out.push_back("<reply " + std::to_string(piece.reply_conversation) + "." +
                    std::to_string(piece.reply_turn) + ">");
    } else {
      out.emplace_back(json::parse(piece.message_json).as_object().at("content").as_string());
    }
  }
  return out;
}

// deltas_without_responses threads the server's reply after each earlier turn; a fork
// inherits the history through the forking turn's reply; message_array_with_responses
// turns have no live pieces (they send their own arrays).
TEST(DagJsonlLoaderTest, LiveHistoryThreadsTheRepliesOfTheEarlierTurns) {
  auto trace = LoadTrace(kTestdata + "/agent.dag.jsonl");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  const TraceTree& main = trace->trees[0];
  EXPECT_EQ(
      LiveLayout(main.conversations[0].turns[0]),
      (std::vector<std::string>{"You are a coding agent.", "Fix the failing test in parser.cc."}));
  EXPECT_EQ(LiveLayout(main.conversations[0].turns[2]),
            (std::vector<std::string>{"You are a coding agent.",
                                      "Fix the failing test in parser.cc.", "<reply 0.0>",
                                      "Reading parser.cc now.", "The explorer found the bug.",
                                      "<reply 0.1>", "Run the tests again."}));
  const TraceConversation* review = nullptr;
  for (const TraceConversation& c : main.conversations) {
    if (c.id == "review") review = &c;
  }
  ASSERT_NE(review, nullptr);
  EXPECT_EQ(LiveLayout(review->turns[0]),
            (std::vector<std::string>{"You are a coding agent.",
                                      "Fix the failing test in parser.cc.", "<reply 0.0>",
                                      "Reading parser.cc now.", "The explorer found the bug.",
                                      "<reply 0.1>", "Review the fix before it lands."}));
  EXPECT_TRUE(trace->trees[1].conversations[0].turns[1].live_messages.empty());
}

TEST(MultiTurnLoaderTest, LiveHistoryPutsTheServersReplyWhereTheRecordedOneWas) {
  auto trace = LoadTrace(kTestdata + "/chats.multi_turn.json");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  const TraceConversation& a = trace->trees[0].conversations[0];
  EXPECT_EQ(LiveLayout(a.turns[1]),
            (std::vector<std::string>{"What does a prefix cache store?", "<reply 0.0>",
                                      "Why are the blocks hashed in a chain?"}));
}

TEST(DagJsonlLoaderTest, RootsHoldTheirSpawnedAndForkedChildrenWithHistoryAccumulated) {
  auto trace = LoadTrace(kTestdata + "/agent.dag.jsonl");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->format, TraceFormat::kDagJsonl);
  EXPECT_TRUE(trace->text_messages);
  EXPECT_FALSE(trace->has_timestamps);  // delays only: closed-loop lanes
  ASSERT_EQ(trace->trees.size(), 2u);   // "main" with its children, and "standalone"
  const TraceTree& main = trace->trees[0];
  EXPECT_EQ(main.id, "main");
  ASSERT_EQ(main.conversations.size(), 4u);
  const TraceConversation& root = main.conversations[0];
  ASSERT_EQ(root.turns.size(), 3u);
  EXPECT_EQ(root.turns[0].output_tokens, 40);
  EXPECT_EQ(root.turns[1].delay_ms, 250);
  // deltas_without_responses: each turn sends every earlier turn's messages, then its own.
  EXPECT_EQ(Contents(root.turns[2]),
            (std::vector<std::string>{
                "You are a coding agent.", "Fix the failing test in parser.cc.",
                "Reading parser.cc now.", "The explorer found the bug.", "Run the tests again."}));
  EXPECT_EQ(root.turns[2].body_fields_json,
            R"(,"tools":[{"type":"function","function":{"name":"run_tests"}}],"temperature":0)");
  EXPECT_EQ(root.turns[2].where, kTestdata + "/agent.dag.jsonl:1: turns[2]");

  // A bare-string spawn joins at the next turn; {children, join_at} where it says.
  const TraceConversation& explore = main.conversations[1];
  EXPECT_EQ(explore.id, "explore");
  EXPECT_EQ(explore.parent, 0);
  EXPECT_EQ(explore.spawn_after_turn, 0);
  EXPECT_EQ(explore.join_before_turn, 1);
  EXPECT_EQ(explore.spawn_offset_ms, 50);  // its first turn's delay
  // A spawn starts fresh: its own messages only.
  EXPECT_EQ(Contents(explore.turns[1]),
            (std::vector<std::string>{"List the files that mention parse_number.",
                                      "Open the first one."}));
  const TraceConversation& grep = main.conversations[2];
  EXPECT_EQ(grep.id, "grep");
  EXPECT_EQ(grep.join_before_turn, 2);
  // A background fork inherits the parent's history at the fork turn and is not joined.
  const TraceConversation& review = main.conversations[3];
  EXPECT_EQ(review.id, "review");
  EXPECT_EQ(review.spawn_after_turn, 1);
  EXPECT_EQ(review.join_before_turn, -1);
  EXPECT_EQ(Contents(review.turns[0]).size(), 5u);
  EXPECT_EQ(Contents(review.turns[0]).back(), "Review the fix before it lands.");

  // message_array_with_responses: every turn its own array.
  const TraceConversation& standalone = trace->trees[1].conversations[0];
  EXPECT_EQ(Contents(standalone.turns[1]),
            (std::vector<std::string>{"Summarise this other diff."}));
  EXPECT_EQ(trace->num_turns(), 9);
}

TEST(DagJsonlLoaderTest, BadRowsFailWithFileLineAndField) {
  const std::string ok =
      R"({"session_id": "a", "turns": [{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}]})";
  struct Case {
    std::string row, expected;
  };
  const std::vector<Case> cases = {
      {R"({"session_id": "b", "turns": [{"messages": [{"role": "user", "content": "x"}]}]})",
       "d.jsonl:2: turns[0].max_tokens is missing"},
      {R"({"session_id": "b", "turns": [{"messages": [], "max_tokens": 1}]})",
       "d.jsonl:2: turns[0].messages = []: must hold at least one message"},
      {R"({"session_id": "b", "turns": [{"messages": [{"content": "x"}], "max_tokens": 1}]})",
       "d.jsonl:2: turns[0].messages[0]: must be an object with a string 'role'"},
      {R"({"session_id": "b", "turns": [{"messages": [{"role": "user"}], "max_tokens": true}]})",
       "d.jsonl:2: turns[0].max_tokens = true: must be an integer >= 1, not a boolean"},
      {R"({"session_id": "b", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1, "temperature": 0}]})",
       "d.jsonl:2: unknown field 'turns[0].temperature' (allowed: messages, model, max_tokens"},
      {R"({"session_id": "b", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1, "extra": {"max_tokens": 9}}]})",
       "d.jsonl:2: turns[0].extra.max_tokens: servebench sets this body field itself"},
      {R"({"session_id": "b", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1, "spawns": ["nobody"]}]})",
       "d.jsonl:2: turns[0].spawns: \"nobody\": no conversation of the file has this session_id"},
      {R"({"session_id": "b", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1, "forks": ["a"]}, {"messages": [{"role": "user"}], "max_tokens": 1}]})",
       "d.jsonl:2: turns[1]: follows a fork that ends the conversation"},
      {R"({"session_id": "b", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1, "spawns": [{"children": ["a"], "join_at": 0}]}]})",
       "d.jsonl:2: turns[0].spawns[0].join_at = 0: must be a later turn of this conversation"},
      {R"({"session_id": "a", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1}]})",
       "d.jsonl:2: session_id = \"a\": also the session_id of line 1"},
      {R"({"session_id": "b", "orchestrator": true, "spawns": ["a"]})",
       "d.jsonl:2: orchestrator = true: orchestrator conversations"},
      {R"({"session_id": "b", "pre_session_spawns": ["a"], "turns": []})",
       "d.jsonl:2: pre_session_spawns = [\"a\"]: children started before turn 0 are not supported"},
      {R"({"session_id": "b", "context_mode": "live", "turns": []})",
       "d.jsonl:2: context_mode = \"live\": must be deltas_without_responses"},
      {R"({"session_id": "b", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1, "model": "m"}]})",
       "d.jsonl:2: turns[0].model = \"m\": a per-turn model is not supported"},
  };
  for (const Case& c : cases) {
    const std::string error =
        LoadError(Write("d.jsonl", ok + "\n" + c.row + "\n"), TraceFormat::kDagJsonl);
    EXPECT_NE(error.find(c.expected), std::string::npos) << c.row << "\n  gave: " << error;
  }
  // Two conversations that name each other have no root.
  const std::string loop =
      R"({"session_id": "x", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1, "spawns": ["y"]}]}
{"session_id": "y", "turns": [{"messages": [{"role": "user"}], "max_tokens": 1, "spawns": ["x"]}]}
)";
  EXPECT_NE(LoadError(Write("d.jsonl", loop), std::nullopt)
                .find("d.jsonl:1: session_id = \"x\": "
                      "its parent chain loops"),
            std::string::npos);
}

TEST(MultiTurnLoaderTest, EachUserMessageIsATurnSendingTheRecordedHistory) {
  auto trace = LoadTrace(kTestdata + "/chats.multi_turn.json");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->format, TraceFormat::kMultiTurn);
  EXPECT_TRUE(trace->text_messages);
  ASSERT_EQ(trace->trees.size(), 2u);
  EXPECT_EQ(trace->trees[0].scope, trace->trees[1].scope);  // one file, one id space
  const TraceConversation& a = trace->trees[0].conversations[0];
  EXPECT_EQ(a.id, "conv-a");
  ASSERT_EQ(a.turns.size(), 2u);
  // Pre-canned: the recorded assistant reply is in the second turn's history.
  EXPECT_EQ(Contents(a.turns[1]),
            (std::vector<std::string>{
                "What does a prefix cache store?",
                "The key and value tensors of prompt blocks it has already computed.",
                "Why are the blocks hashed in a chain?"}));
  EXPECT_EQ(a.turns[0].answer_text,
            "The key and value tensors of prompt blocks it has already computed.");
  EXPECT_EQ(a.turns[0].output_tokens, 0);  // counted by the server's tokenizer at replay
  EXPECT_EQ(a.turns[1].delay_ms, 0);
  EXPECT_EQ(trace->trees[1].conversations[0].turns[0].where,
            kTestdata + "/chats.multi_turn.json:11: messages[0]");
}

TEST(MultiTurnLoaderTest, BadConversationsNameTheirLineAndField) {
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {"[\n{\"id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"q\"}, {\"role\": "
       "\"assistant\", \"content\": \"r\"}]},\n{\"id\": \"b\", \"messages\": [{\"role\": "
       "\"assistant\", \"content\": \"r\"}]}\n]",
       "m.json:3: messages[0].role = \"assistant\": must be \"user\""},
      {"[{\"id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"q\"}]}]",
       "m.json:1: messages[0]: the last user message has no assistant reply"},
      {"[{\"id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": 5}]}]",
       "m.json:1: messages[0].content = 5: must be a string"},
      {"[{\"id\": \"a\", \"turns\": []}]",
       "m.json:1: unknown field 'turns' (allowed: id, messages)"},
      {"[{\"id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"q\"}, {\"role\": "
       "\"assistant\", \"content\": \"r\"}]},\n {\"id\": \"a\", \"messages\": [{\"role\": "
       "\"user\", \"content\": \"q\"}, {\"role\": \"assistant\", \"content\": \"r\"}]}]",
       "m.json:2: id = \"a\": also the id of the conversation on line 1"},
      {"{\"filetype\": \"generate_conversations\"}",
       "a vLLM generator config (\"filetype\") is not supported"},
  };
  for (const Case& c : cases) {
    const std::string error = LoadError(Write("m.json", c.text), TraceFormat::kMultiTurn);
    EXPECT_NE(error.find(c.expected), std::string::npos) << c.text << "\n  gave: " << error;
  }
}

TEST(TextTraceFormatTest, NamesAndDetectionCoverBothFormats) {
  EXPECT_TRUE(IsTraceFormatName("dag_jsonl"));
  EXPECT_TRUE(IsTraceFormatName("multi_turn"));
  EXPECT_EQ(DetectTraceFormat(kTestdata + "/agent.dag.jsonl").value(), TraceFormat::kDagJsonl);
  EXPECT_EQ(DetectTraceFormat(kTestdata + "/chats.multi_turn.json").value(),
            TraceFormat::kMultiTurn);
  EXPECT_EQ(TraceFormatName(TraceFormat::kMultiTurn), "multi_turn");
}

}  // namespace
}  // namespace servebench::trace
