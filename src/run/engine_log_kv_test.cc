#include "run/engine_log_kv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/testing/files.h"

namespace servebench::run {
namespace {

TEST(EngineLogKvTest, EachEngineCoresLastSizeIsSummed) {
  // Two data-parallel cores; DP0 states its size twice (a re-profile): its last counts.
  const std::string log =
      "INFO 12-01 10:00:00 [core.py:75] (EngineCore_DP0 pid=311) GPU KV cache size: 100,000 "
      "tokens\n"
      "INFO 12-01 10:00:01 [core.py:75] (EngineCore_DP1 pid=312) GPU KV cache size: 120,000 "
      "tokens\n"
      "(EngineCore_DP0 pid=311) INFO [kv_cache_utils.py:1087] GPU KV cache size: 110,000 tokens\n"
      "INFO Maximum concurrency for 8,192 tokens per request: 13.43x\n";
  EXPECT_EQ(VllmKvCapacityFromLog(log), 230000);
}

TEST(EngineLogKvTest, UntaggedLinesAreSummedAndNoSizeIsNone) {
  EXPECT_EQ(VllmKvCapacityFromLog("GPU KV cache size: 4,096 tokens\nGPU KV cache size: 1 tokens\n"),
            4097);
  // A tagged line wins over untagged ones, as InferenceX reads it.
  EXPECT_EQ(VllmKvCapacityFromLog("GPU KV cache size: 5 tokens\n"
                                  "(EngineCore pid=9) GPU KV cache size: 7 tokens"),
            7);
  EXPECT_EQ(VllmKvCapacityFromLog("GPU KV cache size: 0 tokens\nGPU KV cache size: many\n"),
            std::nullopt);
  EXPECT_EQ(VllmKvCapacityFromLog(""), std::nullopt);
}

TEST(EngineLogKvTest, SglangsRanksAreSummedAndOneRankIsScaledByDpSize) {
  EXPECT_EQ(SglangKvCapacityFromLog("[2026-12-01 DP0 TP0 EP0] max_total_num_tokens=500, chunked\n"
                                    "[2026-12-01 DP1 TP0 EP0] max_total_num_tokens=600, chunked\n"
                                    "[2026-12-01 DP0 TP0 EP0] max_total_num_tokens=550, chunked\n"),
            1150);
  // One rank logged of a data-parallel server: dp_size times it.
  EXPECT_EQ(SglangKvCapacityFromLog("server_args=ServerArgs(tp_size=8, dp_size=4, ...)\n"
                                    "[DP0 TP0 EP0] max_total_num_tokens=1000\n"),
            4000);
  EXPECT_EQ(SglangKvCapacityFromLog("dp_size=2\nmax_total_num_tokens=300\n"), 600);
  EXPECT_EQ(SglangKvCapacityFromLog("max_total_num_tokens=300\nmax_total_num_tokens=200\n"), 500);
  // attn_dp_size is not dp_size; a size glued to a word is not one.
  EXPECT_EQ(SglangKvCapacityFromLog("attn_dp_size=4 max_total_num_tokens=300\n"), 300);
  EXPECT_EQ(SglangKvCapacityFromLog("max_total_num_tokens=300x\n"), std::nullopt);
  EXPECT_EQ(SglangKvCapacityFromLog("GPU KV cache size: 4,096 tokens\n"), std::nullopt);
}

TEST(EngineLogKvTest, AFolderOfProcessLogsIsSummedOverItsFiles) {
  const std::string dir = testing::FreshTestDir("engine_log_kv");
  std::ofstream(dir + "/b-worker.log") << "(EngineCore pid=2) GPU KV cache size: 300 tokens\n";
  std::ofstream(dir + "/a-worker.log") << "(EngineCore pid=1) GPU KV cache size: 200 tokens\n";
  std::ofstream(dir + "/router.log") << "router listening on :8000\n";
  const std::vector<std::string> files = EngineLogFiles(dir);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(std::filesystem::path(files[0]).filename(), "a-worker.log");  // name order
  std::vector<std::string> logs;
  for (const std::string& f : files) logs.push_back(EngineLogHead(f));
  const LogKvCapacity kv = KvCapacityOfLogs(logs);
  EXPECT_EQ(kv.vllm, 500);
  EXPECT_EQ(kv.sglang, std::nullopt);
  EXPECT_EQ(EngineLogFiles(dir + "/a-worker.log").size(), 1u);
  EXPECT_TRUE(EngineLogFiles(dir + "/absent").empty());
  EXPECT_TRUE(EngineLogFiles("").empty());
}

}  // namespace
}  // namespace servebench::run
