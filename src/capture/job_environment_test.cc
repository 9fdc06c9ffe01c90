// The job a row becomes: benchmark-tmpl.yml's environment, and the script the
// launchers pick.
#include "capture/job_environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "capture/testing/dry_run_replay.h"
#include "recipe/recipe.h"

namespace servebench::capture {
namespace {

using testing::FixtureRoot;
using ::testing::HasSubstr;

struct Loaded {
  recipe::Plan plan;
  recipe::RunnerConfig runners;
};

const Loaded& Fixture() {
  static const Loaded* loaded = [] {
    auto* l = new Loaded;
    recipe::Diagnostics d;
    recipe::RecipeSet set = recipe::LoadRecipes(
        {FixtureRoot() + "/configs/fixture-master.yaml", FixtureRoot() + "/configs/runners.yaml"},
        &d);
    EXPECT_TRUE(d.ok()) << d.ToString();
    l->plan = *recipe::ExpandRecipes(set, recipe::MatrixFilters{});
    l->runners = set.runners;
    return l;
  }();
  return *loaded;
}

JobEnvironment JobOf(const std::string& key, int conc) {
  for (const auto& p : Fixture().plan.points) {
    if (p.recipe != key || p.load.concurrency != conc) continue;
    auto job = JobEnvironmentFor(p, Fixture().runners, 8888, FixtureRoot());
    EXPECT_TRUE(job.ok()) << job.status().ToString();
    return job.ok() ? *job : JobEnvironment{};
  }
  ADD_FAILURE() << "no point " << key << " " << conc;
  return {};
}

TEST(JobEnvironmentTest, TheWorkflowsVariablesComeFromTheRow) {
  JobEnvironment job = JobOf("tinyx-fp8-mi355x-vllm-mtp", 16);
  const auto& v = job.vars;
  EXPECT_EQ(v.at("MODEL"), "tiny-org/TinyX-FP8");
  EXPECT_EQ(v.at("EXP_NAME"), "tinyx_1k1k");
  EXPECT_EQ(v.at("ISL"), "1024");
  EXPECT_EQ(v.at("MAX_MODEL_LEN"), "2304");
  EXPECT_EQ(v.at("TP"), "8");
  EXPECT_EQ(v.at("EP_SIZE"), "8");
  EXPECT_EQ(v.at("DP_ATTENTION"), "true");
  EXPECT_EQ(v.at("CONC"), "16");
  EXPECT_EQ(v.at("SPEC_DECODING"), "mtp");
  EXPECT_EQ(v.at("RANDOM_RANGE_RATIO"), "0.8");
  EXPECT_EQ(v.at("RESULT_DIR"), "/workspace/results");
  EXPECT_EQ(v.at("HF_HUB_CACHE"), "/mnt/hf_hub_cache/");
  EXPECT_EQ(v.at("RUNNER_NAME"), "mi355x-amds_00");
  EXPECT_EQ(v.at("GPU_COUNT"), "8");
  EXPECT_EQ(v.at("PORT"), "8888");
  EXPECT_EQ(v.at("SCENARIO_SUBDIR"), "fixed_seq_len/");
  EXPECT_EQ(v.at("RESULT_FILENAME"),
            "tinyx_1k1k_fp8_vllm_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-false_spec-mtp_conc16_"
            "mi355x-amds_00");
  // An AMD allocation's GPUs, and no real token.
  EXPECT_EQ(v.at("ROCR_VISIBLE_DEVICES"), "0,1,2,3,4,5,6,7");
  EXPECT_EQ(v.count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ(v.at("HF_TOKEN"), SecretPlaceholders().at("HF_TOKEN"));
  JobEnvironment b200 = JobOf("tinyx-fp4-b200-trt", 4);
  EXPECT_EQ(b200.vars.at("CUDA_VISIBLE_DEVICES"), "0,1,2,3");
  EXPECT_EQ(b200.vars.at("SPEC_DECODING"), "none");
}

TEST(JobEnvironmentTest, AgenticRowsHaveNoLengthsAndCarryTheirOffloadMetadata) {
  JobEnvironment job = JobOf("tinyx-fp8-h200-vllm-agentic-mtp", 8);
  const auto& v = job.vars;
  EXPECT_EQ(v.at("SCENARIO_TYPE"), "agentic-coding");
  EXPECT_EQ(v.at("SCENARIO_SUBDIR"), "agentic/");
  EXPECT_EQ(v.at("IS_AGENTIC"), "1");
  EXPECT_EQ(v.at("ISL"), "");
  EXPECT_EQ(v.at("MAX_MODEL_LEN"), "");
  EXPECT_EQ(v.at("KV_OFFLOADING"), "dram");
  EXPECT_EQ(v.at("KV_OFFLOAD_BACKEND"), "lmcache");
  EXPECT_EQ(v.at("KV_OFFLOAD_BACKEND_METADATA"),
            "{\n  \"name\": \"lmcache\",\n  \"version\": \"0.5.3\"\n}");
  EXPECT_EQ(v.at("DURATION"), "3600");
  EXPECT_GT(std::stoi(v.at("TOTAL_CPU_DRAM_GB")), 0);
  EXPECT_EQ(job.script, "benchmarks/single_node/agentic/tinyx_fp8_h200_mtp.sh");
}

TEST(JobEnvironmentTest, TheFrameworkTaggedScriptIsPreferredThenTheLaunchersOlderNames) {
  EXPECT_EQ(JobOf("tinyx-fp8-h200-sglang", 1).script,
            "benchmarks/single_node/fixed_seq_len/tinyx_fp8_h200_sglang.sh");
  EXPECT_EQ(JobOf("tinyx-fp4-b200-trt", 4).script,
            "benchmarks/single_node/fixed_seq_len/tinyx_fp4_b200_trt.sh");
  EXPECT_EQ(JobOf("tinyx-fp8-mi355x-vllm-mtp", 1).script,
            "benchmarks/single_node/fixed_seq_len/tinyx_fp8_mi355x_mtp.sh");
  JobEnvironment missing = JobOf("tinyx-fp8-mi300x-vllm", 4);
  EXPECT_EQ(missing.script, "");
  EXPECT_EQ(missing.candidates, (std::vector<std::string>{
                                    "benchmarks/single_node/fixed_seq_len/tinyx_fp8_mi300x_vllm.sh",
                                    "benchmarks/single_node/fixed_seq_len/tinyx_fp8_mi300x.sh"}));
}

TEST(JobEnvironmentTest, OnlySingleNodeInferenceXPointsHaveAJob) {
  recipe::Point p = Fixture().plan.points.front();
  p.source_format = "native";
  EXPECT_THAT(JobEnvironmentFor(p, Fixture().runners, 8888, FixtureRoot()).status().message(),
              HasSubstr("a native recipe, not an InferenceX config key"));
  p.source_format = "inferencex";
  p.serve.multinode = true;
  EXPECT_THAT(JobEnvironmentFor(p, Fixture().runners, 8888, FixtureRoot()).status().message(),
              HasSubstr("a multinode config key"));
}

}  // namespace
}  // namespace servebench::capture
