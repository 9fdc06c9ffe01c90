#include "recipe/agentic_trace.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace servebench::recipe {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

Point AgenticPoint(const std::string& model_prefix, int concurrency) {
  Point p;
  p.recipe = model_prefix + "-fp8-h200-vllm-agentic-mtp";
  p.model_prefix = model_prefix;
  p.serve.engine = "vllm";
  p.serve.model = "m";
  p.load.scenario = "agentic-coding";
  p.load.dataset = "agentic-coding";
  p.load.duration_s = 3600;
  p.load.concurrency = concurrency;
  return p;
}

// One Weka trajectory of two turns in `dir`/t.jsonl.
void WriteWeka(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "t.jsonl")
      << R"({"id":"a","block_size":64,"requests":[)"
      << R"({"type":"n","t":0,"in":100,"out":4,"hash_ids":[1],"api_time":1},)"
      << R"({"type":"n","t":2,"in":200,"out":4,"hash_ids":[1,2],"api_time":1}]})"
      << "\n";
}

class BindAgenticTracesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("agentic_trace_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(InferenceXTraceLoaderTest, TheMillionTokenFamiliesReplayTheFullCorpusTheRestItsCut) {
  EXPECT_EQ(InferenceXTraceLoader("minimaxm3"), "semianalysis_cc_traces_weka_062126");
  EXPECT_EQ(InferenceXTraceLoader("dsv4-pro"), "semianalysis_cc_traces_weka_062126");
  EXPECT_EQ(InferenceXTraceLoader("qwen3.5"), "semianalysis_cc_traces_weka_062126_256k");
  EXPECT_EQ(InferenceXTraceDataset("semianalysis_cc_traces_weka_062126_256k"),
            "semianalysisai/cc-traces-weka-062126-256k");
  EXPECT_EQ(InferenceXTraceDataset("semianalysis_cc_traces_weka_with_subagents"),
            "semianalysisai/cc-traces-weka-061526");
}

TEST(AgenticLaunchFlagsTest, VllmGetsThePrefixCacheItsBlockAndTwiceTheConcurrency) {
  ServeSpec vllm;
  vllm.engine = "vllm";
  AddAgenticLaunchFlags(&vllm, 12, "minimaxm3");
  EXPECT_EQ(vllm.extra_args, (std::vector<std::string>{"--enable-prefix-caching", "--block-size",
                                                       "128", "--max-num-seqs", "24"}));
  EXPECT_EQ(KvBlockTokens(vllm), 128);
  ServeSpec dsv4;
  dsv4.engine = "vllm";
  dsv4.dp_attn = true;
  dsv4.tp = 8;
  AddAgenticLaunchFlags(&dsv4, 64, "dsv4");
  EXPECT_EQ(KvBlockTokens(dsv4), 256);
  EXPECT_EQ(dsv4.extra_args.back(), "16");  // 2 x 64 / TP 8 with DP attention
  ServeSpec sglang;
  sglang.engine = "sglang";
  AddAgenticLaunchFlags(&sglang, 4, "qwen3.5");
  EXPECT_EQ(sglang.extra_args, (std::vector<std::string>{"--max-running-requests", "8"}));
  EXPECT_EQ(KvBlockTokens(sglang), std::nullopt);
}

TEST(KvBlockTokensTest, TheSimOptionThenTheLastFlagOfTheCommand) {
  ServeSpec sim;
  sim.engine = "sim";
  sim.sim_options["block-size"] = "32";
  EXPECT_EQ(KvBlockTokens(sim), 32);
  ServeSpec captured;
  captured.engine = "sglang";
  captured.command.argv = {"python3", "-m", "sglang.launch_server", "--page-size=64"};
  EXPECT_EQ(KvBlockTokens(captured), 64);
  captured.command.argv.push_back("--page-size");
  captured.command.argv.push_back("not-a-number");
  EXPECT_EQ(KvBlockTokens(captured), 64);
}

TEST(KvBlockTokensTest, LlamaCppReusesTokenPrefixesNotBlocks) {
  ServeSpec llama;
  llama.engine = "llamacpp";
  EXPECT_EQ(KvBlockTokens(llama), 1);
}

TEST_F(BindAgenticTracesTest, WithoutATraceThePlanFailsNamingTheLoaderAndItsDataset) {
  Plan plan;
  plan.points.push_back(AgenticPoint("minimaxm3", 4));
  Status st = BindAgenticTraces(&plan, {});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("minimaxm3-fp8-h200-vllm-agentic-mtp (agentic-coding, "
                                      "concurrency 4): needs a trace to replay: --trace PATH"));
  EXPECT_THAT(st.message(), HasSubstr("semianalysis_cc_traces_weka_062126/"));
  EXPECT_THAT(st.message(), HasSubstr("semianalysisai/cc-traces-weka-062126"));
}

TEST_F(BindAgenticTracesTest, TheLoaderFolderUnderTheTraceIsUsedAndTheDurationOverrides) {
  WriteWeka(dir_ / "semianalysis_cc_traces_weka_062126");
  WriteWeka(dir_ / "other");
  Plan plan;
  plan.points.push_back(AgenticPoint("minimaxm3", 4));
  Point fixed;
  fixed.load.isl = fixed.load.osl = 1024;
  plan.points.push_back(fixed);
  const Point before = plan.points[0];
  ASSERT_TRUE(BindAgenticTraces(&plan, {dir_.string(), "", 60}).ok());
  const LoadSpec& l = plan.points[0].load;
  EXPECT_EQ(l.dataset, "weka_trace");
  EXPECT_EQ(l.dataset_path, (dir_ / "semianalysis_cc_traces_weka_062126").string());
  EXPECT_EQ(l.endpoint, "/v1/chat/completions");  // InferenceX's rows: chat messages
  EXPECT_EQ(l.duration_s, 60);
  EXPECT_TRUE(IsTraceReplay(l));
  EXPECT_NE(plan.points[0].point_id, before.point_id);  // the trace is part of what it measures
  EXPECT_EQ(plan.points[1].load.dataset, "random");     // a fixed-seq point is left alone
}

TEST_F(BindAgenticTracesTest, ALlamaCppPointKeepsTokenIdsOnCompletionsAndSaysWhy) {
  WriteWeka(dir_ / "semianalysis_cc_traces_weka_062126");
  Plan plan;
  plan.points.push_back(AgenticPoint("minimaxm3", 2));
  plan.points.back().serve.engine = "llamacpp";
  plan.points.push_back(AgenticPoint("minimaxm3", 2));  // vllm
  ASSERT_TRUE(BindAgenticTraces(&plan, {dir_.string(), "", 0}).ok());
  const Point& llama = plan.points[0];
  EXPECT_EQ(llama.load.endpoint, "/v1/completions");
  EXPECT_EQ(AgenticCacheBust(llama.load.endpoint), "none");
  EXPECT_THAT(AgenticTokenIdsReason(llama.serve, llama.load.endpoint),
              HasSubstr("the llamacpp engine's /tokenize cannot count chat messages"));
  const Point& vllm = plan.points[1];
  EXPECT_EQ(vllm.load.endpoint, "/v1/chat/completions");
  EXPECT_EQ(AgenticCacheBust(vllm.load.endpoint), "first_turn_prefix");
  EXPECT_EQ(AgenticTokenIdsReason(vllm.serve, vllm.load.endpoint), "");
}

TEST(TokenizesChatMessagesTest, ARehearsalCountsAsTheEngineItStandsInFor) {
  ServeSpec sim;
  sim.engine = "sim";
  EXPECT_TRUE(TokenizesChatMessages(sim));
  sim.stands_in_for = "vllm";
  EXPECT_TRUE(TokenizesChatMessages(sim));
  sim.stands_in_for = "llamacpp";
  EXPECT_FALSE(TokenizesChatMessages(sim));
  EXPECT_EQ(AgenticEndpoint(sim), "/v1/completions");
}

TEST_F(BindAgenticTracesTest, ABadTraceFailsThePlanWithItsFileAndLine) {
  fs::create_directories(dir_ / "t");
  std::ofstream(dir_ / "t" / "bad.jsonl")
      << R"({"timestamp":0,"input_length":-5,"output_length":1})"
      << "\n";
  Plan plan;
  plan.points.push_back(AgenticPoint("qwen3.5", 1));
  Status st = BindAgenticTraces(&plan, {(dir_ / "t").string(), "", 0});
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("bad.jsonl:1"));
  EXPECT_THAT(st.message(), HasSubstr("input_length"));
  EXPECT_THAT(st.message(), HasSubstr("semianalysis_cc_traces_weka_062126_256k"));

  Status absent = BindAgenticTraces(&plan, {(dir_ / "nowhere").string(), "", 0});
  ASSERT_FALSE(absent.ok());
  EXPECT_THAT(absent.message(), HasSubstr("nowhere"));
}

TEST_F(BindAgenticTracesTest, TraceFlagsWithoutAgenticPointsAreRefused) {
  Plan plan;
  plan.points.emplace_back();
  EXPECT_THAT(BindAgenticTraces(&plan, {"", "", 60}).message(), HasSubstr("--duration applies"));
  EXPECT_THAT(BindAgenticTraces(&plan, {dir_.string(), "", 0}).message(),
              HasSubstr("--trace: the selected points have no agentic-coding"));
  EXPECT_THAT(BindAgenticTraces(&plan, {"", "bogus", 0}).message(), HasSubstr("--trace-format"));
}

}  // namespace
}  // namespace servebench::recipe
