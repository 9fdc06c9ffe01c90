#include "trace/trace_loader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/testing/files.h"

namespace servebench::trace {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = servebench::testing::FreshTestDir("trace") + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TraceLoadOptions Options(std::optional<TraceFormat> format, int64_t mooncake_block_tokens = 0) {
  TraceLoadOptions options;
  options.format = format;
  options.mooncake_block_tokens = mooncake_block_tokens;
  return options;
}

// The message of a failed load, or a note that it did not fail.
std::string LoadError(const std::string& path, const TraceLoadOptions& options = {}) {
  auto trace = LoadTrace(path, options);
  return trace.ok() ? "(loaded)" : trace.status().message();
}

TEST(MooncakeLoaderTest, RowsWithoutSessionsAreOneTurnTreesOnTheirTimestamps) {
  const std::string path =
      Write("t.jsonl",
            R"({"timestamp": 0, "input_length": 1024, "output_length": 10, "hash_ids": [0, 1]}
{"timestamp": 27, "input_length": 1500, "output_length": 5, "hash_ids": [0, 1, 2]}
)");
  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->format, TraceFormat::kMooncake);
  EXPECT_EQ(trace->block_size_tokens, 512);
  EXPECT_TRUE(trace->has_timestamps);
  ASSERT_EQ(trace->trees.size(), 2u);
  EXPECT_EQ(trace->trees[0].scope, trace->trees[1].scope);  // one file, one id space
  const TraceTurn& second = trace->trees[1].conversations[0].turns[0];
  EXPECT_EQ(second.timestamp_ms, 27);
  EXPECT_EQ(second.input_tokens, 1500);
  EXPECT_EQ(second.output_tokens, 5);
  EXPECT_EQ(second.hash_ids, (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(second.where, path + ":2");
}

TEST(MooncakeLoaderTest, RowsOfOneSessionAreTurnsOfOneConversationInFileOrder) {
  const std::string path = Write(
      "s.jsonl",
      R"({"session_id": "a", "timestamp": 0, "input_length": 512, "output_length": 4, "hash_ids": [0]}
{"session_id": "b", "timestamp": 5, "input_length": 512, "output_length": 4, "hash_ids": [9]}
{"session_id": "a", "delay": 250, "input_length": 1024, "output_length": 4, "hash_ids": [0, 1]}
)");
  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->trees.size(), 2u);
  EXPECT_EQ(trace->trees[0].id, "a");
  ASSERT_EQ(trace->trees[0].conversations[0].turns.size(), 2u);
  EXPECT_EQ(trace->trees[0].conversations[0].turns[1].delay_ms, 250);
  EXPECT_EQ(trace->trees[0].conversations[0].turns[1].timestamp_ms, -1);
  EXPECT_EQ(trace->num_turns(), 3);
}

TEST(MooncakeLoaderTest, BadRowsFailWithFileLineAndField) {
  const std::string ok =
      R"({"timestamp": 0, "input_length": 512, "output_length": 1, "hash_ids": [0]})";
  struct Case {
    std::string row, expected;
  };
  const std::vector<Case> cases = {
      {R"({"timestamp": 0, "output_length": 1})", "t.jsonl:2: input_length is missing (required)"},
      {R"({"timestamp": 0, "input_length": -5, "output_length": 1})",
       "t.jsonl:2: input_length = -5: must be an integer >= 1"},
      {R"({"timestamp": 0, "input_length": 5, "output_length": 1, "hash_id": [1]})",
       "t.jsonl:2: unknown field 'hash_id' (allowed: timestamp, delay, session_id"},
      {R"({"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1, "x"]})",
       "t.jsonl:2: hash_ids[1] = \"x\": must be an integer >= 0"},
      {R"({"timestamp": 0, "input_length": 600, "output_length": 1, "hash_ids": [4, 5, 6]})",
       "t.jsonl:2: hash_ids: 3 hash ids of 512 tokens need more than 600 input tokens"},
      {R"({"timestamp": 0, "input_length": 100, "output_length": 1, "hash_ids": [0]})",
       "t.jsonl:2: hash_ids[0] = 0: this id is a block of 512 tokens on an earlier row and 100"},
      {R"({"timestamp": 0, "text_input": "hi", "output_length": 1})",
       "t.jsonl:2: field 'text_input' (an AIPerf input mode) is not supported"},
      {R"({"timestamp": 0, "delay": 5, "input_length": 5, "output_length": 1})",
       "t.jsonl:2: timestamp and delay are both set"},
      {R"({"delay": 5, "input_length": 5, "output_length": 1})",
       "t.jsonl:2: delay = 5 on a row with no session_id"},
      {R"(not json)", "t.jsonl:2: not a JSON object"},
  };
  for (const Case& c : cases) {
    const std::string message =
        LoadError(Write("t.jsonl", ok + "\n" + c.row + "\n"), Options(TraceFormat::kMooncake));
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.row << "\n  gave: " << message;
  }
}

TEST(MooncakeLoaderTest, TheBlockSizeCanBeOverridden) {
  const std::string path = Write(
      "t.jsonl",
      R"({"timestamp": 0, "input_length": 100, "output_length": 1, "hash_ids": [0, 1, 2, 3]})");
  EXPECT_NE(LoadError(path).find("hash_ids"), std::string::npos);
  auto trace = LoadTrace(path, Options(std::nullopt, 32));
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->block_size_tokens, 32);
}

// A root with three turns, a subagent between turns 0 and 1 (joined by turn 1), a
// background subagent after the last turn, and one before any turn (dropped).
const char kWeka[] =
    R"({"id": "tr1", "models": ["m"], "block_size": 64, "hash_id_scope": "local", "tool_tokens": 10, "system_tokens": 20, "requests": [)"
    R"({"type": "subagent", "agent_id": "early", "t": 0, "requests": [{"type": "n", "t": 0, "in": 64, "out": 1, "hash_ids": [50]}]},)"
    R"({"type": "n", "t": 1.0, "model": "m", "in": 200, "out": 10, "hash_ids": [0, 1], "api_time": 2.0, "think_time": null},)"
    R"({"type": "subagent", "agent_id": "a7", "subagent_type": "Explore", "status": "completed", "t": 3.5, "requests": [)"
    R"({"type": "s", "t": 3.5, "in": 128, "out": 4, "hash_ids": [10, 11], "api_time": 1.0, "ttft": 0.2},)"
    R"({"type": "n", "t": 5.0, "in": 192, "out": 4, "hash_ids": [10, 11, 12], "api_time": 1.0}]},)"
    R"({"type": "s", "t": 9.7, "in": 8704, "out": 540, "hash_ids": [0, 1, 2], "api_time": 6.3, "think_time": 5.6, "ttft": 0.5},)"
    R"({"type": "n", "t": 20.0, "in": 9000, "out": 5, "hash_ids": [0, 1, 2, 3], "api_time": 1.0},)"
    R"({"type": "subagent", "agent_id": "bg", "t": 21.5, "requests": [{"type": "n", "t": 21.5, "in": 64, "out": 1, "hash_ids": [20]}]}]})";

TEST(WekaLoaderTest, SubagentsAreChildConversationsSpawnedAndJoinedByTheirParentTurns) {
  auto trace = LoadTrace(Write("w.jsonl", std::string(kWeka) + "\n"));
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->format, TraceFormat::kWeka);
  EXPECT_EQ(trace->block_size_tokens, 64);
  EXPECT_EQ(trace->dropped_subagents, 1);
  ASSERT_EQ(trace->trees.size(), 1u);
  const TraceTree& tree = trace->trees[0];
  ASSERT_EQ(tree.conversations.size(), 3u);
  const TraceConversation& root = tree.conversations[0];
  ASSERT_EQ(root.turns.size(), 3u);
  // End-to-start: 9.7 − (1.0 + 2.0) s, then 20.0 − (9.7 + 6.3) s.
  EXPECT_EQ(root.turns[1].delay_ms, 6700);
  EXPECT_EQ(root.turns[2].delay_ms, 4000);
  EXPECT_EQ(root.turns[1].input_tokens, 8704);
  const TraceConversation& explore = tree.conversations[1];
  EXPECT_EQ(explore.id, "tr1::sa:a7");
  EXPECT_EQ(explore.parent, 0);
  EXPECT_EQ(explore.spawn_after_turn, 0);
  EXPECT_EQ(explore.join_before_turn, 1);
  EXPECT_EQ(explore.spawn_offset_ms, 500);    // 3.5 − (1.0 + 2.0)
  EXPECT_EQ(explore.turns[1].delay_ms, 500);  // 5.0 − (3.5 + 1.0)
  const TraceConversation& background = tree.conversations[2];
  EXPECT_EQ(background.spawn_after_turn, 2);
  EXPECT_EQ(background.join_before_turn, -1);
  EXPECT_EQ(root.turns[1].where, trace->path + ":1: requests[3]");
}

TEST(WekaLoaderTest, EveryTrajectoryIsItsOwnScopeAndAPrettyPrintedFileIsOneTrajectory) {
  const std::string pretty = Write("one.json",
                                   "{\n  \"id\": \"x\", \"block_size\": 64,\n"
                                   "  \"requests\": [{\"type\": \"n\", \"t\": 0, "
                                   "\"in\": 64, \"out\": 1, \"hash_ids\": [0]}]\n}\n");
  auto one = LoadTrace(pretty);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->trees.size(), 1u);
  auto two = LoadTrace(Write("two.jsonl", std::string(kWeka) + "\n" + kWeka + "\n"));
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  ASSERT_EQ(two->trees.size(), 2u);
  EXPECT_NE(two->trees[0].scope, two->trees[1].scope);
}

TEST(WekaLoaderTest, BadTrajectoriesFailWithFileLineAndFieldPath) {
  const std::string req = R"({"type": "n", "t": 0, "in": 64, "out": 1, "hash_ids": [0]})";
  auto row = [&](const std::string& top, const std::string& requests) {
    return R"({"id": "x", "block_size": 64)" + top + R"(, "requests": [)" + requests + "]}";
  };
  struct Case {
    std::string row, expected;
  };
  const std::vector<Case> cases = {
      {row(R"(, "hash_id_scope": "global")", req),
       "w.jsonl:1: hash_id_scope = \"global\": must be \"local\""},
      {row(R"(, "colour": 1)", req), "w.jsonl:1: unknown field 'colour'"},
      {row("", R"({"type": "n", "t": 0, "in": 64, "out": 1, "hash_ids": [0], "tokens": 3})"),
       "w.jsonl:1: unknown field 'requests[0].tokens'"},
      {row("", req + R"(, {"type": "n", "t": -1, "in": 64, "out": 1, "hash_ids": [0]})"),
       "w.jsonl:1: requests[1].t = -1: must be a number >= 0"},
      {row("", req + R"(, {"type": "x"})"),
       "w.jsonl:1: requests[1].type = \"x\": must be n, s or subagent"},
      {row("",
           req + R"(, {"type": "subagent", "agent_id": "a", "requests": [{"type": "subagent"}]})"),
       "w.jsonl:1: requests[1].requests[0].type = \"subagent\": must be n or s"},
      {row("", req + R"(, {"type": "n", "t": 1, "in": 64, "out": 1, "hash_ids": [0, 1]})"),
       "w.jsonl:1: requests[1].hash_ids: 2 hash ids of 64 tokens need more than 64"},
      {row("", ""), "w.jsonl:1: requests = []: must hold at least one request"},
  };
  for (const Case& c : cases) {
    const std::string message =
        LoadError(Write("w.jsonl", c.row + "\n"), Options(TraceFormat::kWeka));
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.row << "\n  gave: " << message;
  }
}

TEST(TraceLoaderTest, AFolderIsItsTraceFilesInNameOrder) {
  const std::string dir = servebench::testing::FreshTestDir("trace");
  std::ofstream(dir + "/b.jsonl") << R"({"timestamp": 5, "input_length": 10, "output_length": 1})"
                                  << "\n";
  std::ofstream(dir + "/a.jsonl") << R"({"timestamp": 0, "input_length": 10, "output_length": 1})"
                                  << "\n";
  std::ofstream(dir + "/notes.txt") << "ignored";
  auto trace = LoadTrace(dir);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->trees.size(), 2u);
  EXPECT_EQ(trace->trees[0].conversations[0].turns[0].timestamp_ms, 0);
  EXPECT_NE(trace->trees[0].scope, trace->trees[1].scope);  // files are separate id spaces
}

TEST(TraceLoaderTest, UnknownContentAndNamesAreClearErrors) {
  EXPECT_NE(
      LoadError(Write("x.jsonl", R"({"prompt": "hi"})")).find("not a trace this version reads"),
      std::string::npos);
  EXPECT_NE(LoadError("/nonexistent/trace.jsonl").find("no such trace file or folder"),
            std::string::npos);
  auto format = ParseTraceFormat("sharegpt");
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.status().message(),
            "trace format 'sharegpt': must be mooncake_trace, weka_trace, bailian_trace, dag_jsonl "
            "or multi_turn");
  EXPECT_TRUE(IsTraceFormatName("bailian_trace"));
  EXPECT_FALSE(IsTraceFormatName("random"));
}

// A Bailian file: sessions by the root of each row's parent chain, in `turn` order, on
// timestamps in seconds, with 16-token blocks; the root missing from the file (the
// session began before its window) makes the parent id the session's.
TEST(BailianLoaderTest, RowsFormSessionsByTheirRootChatInTurnOrder) {
  const std::string path = Write(
      "qwen_traceA_blksz_16.jsonl",
      R"({"chat_id": 10, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 48, "output_length": 8, "type": "text", "turn": 1, "hash_ids": [1, 2, 3]}
{"chat_id": 11, "parent_chat_id": -1, "timestamp": 0.75, "input_length": 20, "output_length": 4, "type": "search", "hash_ids": [7, 8]}
{"chat_id": 13, "parent_chat_id": 12, "timestamp": 9.0, "input_length": 80, "output_length": 8, "type": "text", "turn": 3, "hash_ids": [1, 2, 3, 4, 5]}
{"chat_id": 12, "parent_chat_id": 10, "timestamp": 4.25, "input_length": 64, "output_length": 8, "type": "text", "turn": 2, "hash_ids": [1, 2, 3, 4]}
{"chat_id": 21, "parent_chat_id": 20, "timestamp": 5, "input_length": 16, "output_length": 2, "turn": 2, "hash_ids": [9]}
)");
  auto trace = LoadTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->format, TraceFormat::kBailian);
  EXPECT_EQ(trace->block_size_tokens, 16);
  ASSERT_EQ(trace->trees.size(), 3u);
  EXPECT_EQ(trace->trees[0].id, "chat-10");
  const auto& turns = trace->trees[0].conversations[0].turns;
  ASSERT_EQ(turns.size(), 3u);
  EXPECT_EQ(turns[0].timestamp_ms, 500);
  EXPECT_EQ(turns[1].timestamp_ms, 4250);  // turn 2 (line 4) before turn 3 (line 3)
  EXPECT_EQ(turns[2].timestamp_ms, 9000);
  EXPECT_EQ(turns[2].hash_ids.size(), 5u);
  EXPECT_EQ(trace->trees[1].id, "chat-11");
  EXPECT_EQ(trace->trees[2].id, "chat-20");  // its root is not in the file
  EXPECT_TRUE(trace->has_timestamps);
}

TEST(BailianLoaderTest, BadRowsNameTheirLineAndField) {
  struct Case {
    std::string row, want;
  } cases[] = {
      {R"({"chat_id": 1, "timestamp": 0, "input_length": 16, "output_length": 1, "type": "video"})",
       "t.jsonl:2: type"},
      {R"({"chat_id": 0, "timestamp": 0, "input_length": 16, "output_length": 1})",
       "chat_id = 0: also the chat_id of line 1"},
      {R"({"chat_id": 1, "parent_chat_id": 1, "timestamp": 0, "input_length": 16, "output_length": 1})",
       "parent_chat_id"},
      {R"({"chat_id": 1, "timestamp": 0, "input_length": 16, "output_length": 1, "tokens": 3})",
       "unknown field 'tokens'"},
      {R"({"chat_id": 1, "timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [5]})",
       "hash_ids[0] = 5: this id is a block of 16 tokens on an earlier row and 10 tokens here"},
  };
  const std::string ok =
      R"({"chat_id": 0, "timestamp": 0, "input_length": 16, "output_length": 1, "hash_ids": [5]})";
  for (const Case& c : cases) {
    const std::string error = LoadError(Write("t.jsonl", ok + "\n" + c.row + "\n"));
    EXPECT_NE(error.find(c.want), std::string::npos) << c.row << "\n" << error;
  }
}

}  // namespace
}  // namespace servebench::trace
