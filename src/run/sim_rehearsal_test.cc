#include "run/sim_rehearsal.h"

#include <gtest/gtest.h>

#include <set>

#include "recipe/recipe.h"

namespace servebench::run {
namespace {

std::vector<recipe::Point> Expand(const std::vector<std::string>& files,
                                  const std::vector<std::string>& keys = {}) {
  recipe::Diagnostics d;
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(std::string(SERVEBENCH_SOURCE_DIR) + "/" + f);
  recipe::RecipeSet set = recipe::LoadRecipes(paths, &d);
  EXPECT_TRUE(d.ok()) << d.ToString();
  recipe::MatrixFilters filters;
  filters.config_keys = keys;
  filters.evals = recipe::EvalSelection::kNone;
  auto plan = recipe::ExpandRecipes(set, filters);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? plan->points : std::vector<recipe::Point>{};
}

TEST(SimRehearsalTest, TheSeedInferenceXRecipeBecomesFiftyThreeSimulatedMi355xPoints) {
  auto points = Expand({"src/recipe/testdata/minimaxm3-mi355x-mtp.inferencex.yaml"});
  ASSERT_EQ(points.size(), 53u);
  const std::string before_id = points[0].point_id;
  std::vector<std::string> notes;
  RehearsalSettings s;
  s.time_scale = 0.01;
  ASSERT_TRUE(RehearseOnSim(&points, s, &notes).ok());
  for (const recipe::Point& p : points) {
    EXPECT_EQ(p.serve.engine, "sim");
    EXPECT_EQ(p.serve.stands_in_for, "vllm");
    EXPECT_EQ(p.serve.model, "MiniMaxAI/MiniMax-M3-MXFP8") << "the recipe's model is kept";
    EXPECT_EQ(p.serve.hardware, "mi355x");
    EXPECT_EQ(p.serve.sim_options.at("hardware"), "mi355x");
    EXPECT_EQ(p.serve.sim_options.at("engine-profile"), "vllm");
    EXPECT_EQ(p.serve.sim_options.at("time-scale"), "0.01");
    EXPECT_EQ(p.serve.spec.method, recipe::SpecMethod::kMtp);
    EXPECT_EQ(p.serve.spec.num_speculative_tokens, 3);
    EXPECT_TRUE(p.serve.image.empty()) << "the sim runs on the host";
  }
  EXPECT_NE(points[0].point_id, before_id) << "a rehearsal is a point of its own";
  // Parallelism and lengths as the recipe says: the dp-attn rows stay DP attention.
  int dp_attn = 0;
  for (const recipe::Point& p : points) dp_attn += p.serve.dp_attn ? 1 : 0;
  EXPECT_GT(dp_attn, 0);
}

TEST(SimRehearsalTest, OneKeyOfEachEngineFamilyStandsInWithItsEngineProfile) {
  auto points = Expand({"src/recipe/testdata/nvidia-master.yaml",
                        "src/recipe/testdata/amd-master.yaml", "src/recipe/testdata/runners.yaml"},
                       {"dsr1-fp8-h200-sglang", "dsr1-fp8-h200-trt", "dsr1-fp8-mi355x-atom"});
  ASSERT_FALSE(points.empty());
  std::vector<std::string> notes;
  ASSERT_TRUE(RehearseOnSim(&points, {}, &notes).ok());
  std::set<std::string> families;
  for (const recipe::Point& p : points) {
    families.insert(p.serve.stands_in_for);
    EXPECT_EQ(p.serve.sim_options.at("engine-profile"), p.serve.stands_in_for);
  }
  EXPECT_EQ(families, (std::set<std::string>{"sglang", "trtllm", "atom"}));
}

TEST(SimRehearsalTest, AnUnknownModelOrGpuIsAnErrorListingTheCatalogue) {
  auto points =
      Expand({"src/recipe/testdata/nvidia-master.yaml", "src/recipe/testdata/runners.yaml"},
             {"qwen3.5-fp8-h200-sglang", "qwen3.5-fp4-rtx6000pro-sglang"});
  ASSERT_FALSE(points.empty());
  std::vector<recipe::Point> before = points;
  std::vector<std::string> notes;
  Status s = RehearseOnSim(&points, {}, &notes);
  ASSERT_FALSE(s.ok());
  const std::string& m = s.message();
  EXPECT_NE(m.find("model \"Qwen/Qwen3.5-397B-A17B-FP8\": not in the simulator's catalogue"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("minimax-m3 (MiniMaxAI/MiniMax-M3)"), std::string::npos) << "names the known";
  EXPECT_NE(m.find("hardware \"rtx6000pro\""), std::string::npos) << m;
  EXPECT_NE(m.find("mi355x"), std::string::npos) << m;
  EXPECT_EQ(points.size(), before.size());
  EXPECT_EQ(points[0].serve.engine, before[0].serve.engine) << "nothing changed";
}

TEST(SimRehearsalTest, EngineExtrasWithASimulatorMeaningAreTranslatedTheRestDropped) {
  auto points = Expand({"examples/minimax_m3_mi355x.nightly.yaml"});
  ASSERT_EQ(points.size(), 1u);
  points[0].serve.extra_args.push_back("--max-num-seqs");
  points[0].serve.extra_args.push_back("512");
  points[0].serve.extra_args.push_back("--gpu-memory-utilization=0.85");
  std::vector<std::string> notes;
  ASSERT_TRUE(RehearseOnSim(&points, {}, &notes).ok());
  const recipe::ServeSpec& s = points[0].serve;
  EXPECT_TRUE(s.extra_args.empty());
  EXPECT_TRUE(s.env.empty());
  EXPECT_EQ(s.sim_options.at("max-num-seqs"), "512");
  EXPECT_EQ(s.sim_options.at("gpu-memory-utilization"), "0.85");
  bool dropped_parser = false;
  for (const auto& n : notes) dropped_parser |= n.find("--tool-call-parser") != std::string::npos;
  EXPECT_TRUE(dropped_parser);
}

// An agentic row's prefix-cache flags (recipe/agentic_trace.h) become the sim's: vLLM's
// switch and block size as given, SGLang's radix cache (on by default) as the sim's
// prefix cache, and each batch cap as max-num-seqs.
TEST(SimRehearsalTest, AnAgenticRowsPrefixCacheFlagsBecomeTheSimsOwn) {
  auto points =
      Expand({"src/recipe/testdata/nvidia-master.yaml"}, {"minimaxm3-fp8-h200-vllm-agentic-mtp"});
  ASSERT_FALSE(points.empty());
  // No SGLang agentic key serves a model of the sim's catalogue: the same point as
  // SGLang's script would launch it.
  recipe::Point as_sglang = points.front();
  as_sglang.serve.engine = "sglang";
  as_sglang.serve.extra_args = {"--max-running-requests",
                                std::to_string(2 * as_sglang.load.concurrency)};
  points.push_back(as_sglang);
  std::vector<std::string> notes;
  ASSERT_TRUE(RehearseOnSim(&points, {}, &notes).ok());
  int vllm = 0, sglang = 0;
  for (const recipe::Point& p : points) {
    if (p.load.scenario != "agentic-coding") continue;
    const auto& o = p.serve.sim_options;
    EXPECT_EQ(o.count("enable-prefix-caching"), 1u) << p.recipe;
    EXPECT_EQ(o.at("max-num-seqs"),
              std::to_string(2 * p.load.concurrency / (p.serve.dp_attn ? p.serve.tp : 1)))
        << p.recipe;
    EXPECT_TRUE(p.serve.extra_args.empty());
    if (p.serve.stands_in_for == "vllm") {
      EXPECT_EQ(o.at("block-size"), "128");
      ++vllm;
    } else if (p.serve.stands_in_for == "sglang") {
      ++sglang;
    }
  }
  EXPECT_GT(vllm, 0);
  EXPECT_GT(sglang, 0);
  for (const auto& n : notes) EXPECT_EQ(n.find("--enable-prefix-caching"), std::string::npos) << n;
  // The key's concurrencies 12 and 14 offload KV to DRAM (mooncake): the sim's CPU
  // tier gets the row's DRAM budget.
  int offloading = 0;
  for (const recipe::Point& p : points) {
    if (p.serve.kv_offloading != "dram") continue;
    ++offloading;
    ASSERT_GT(p.serve.total_cpu_dram_gb, 0) << p.recipe;
    EXPECT_EQ(p.serve.sim_options.at("kv-offload-gb"), std::to_string(p.serve.total_cpu_dram_gb))
        << p.recipe;
  }
  EXPECT_GT(offloading, 0);
  for (const auto& n : notes) EXPECT_EQ(n.find("kv-offloading dram"), std::string::npos) << n;
}

// The launch command's own offload size wins over the row's budget, in the sim's unit:
// vLLM's --kv-offloading-size is GiB over all ranks, SGLang's --hicache-size GB per rank.
TEST(SimRehearsalTest, AnOffloadSizeFlagBecomesTheSimsCpuTierInDecimalGb) {
  auto points =
      Expand({"src/recipe/testdata/nvidia-master.yaml"}, {"minimaxm3-fp8-h200-vllm-agentic-mtp"});
  ASSERT_FALSE(points.empty());
  points.resize(2);
  for (recipe::Point& p : points) p.serve.command = {};  // the flags are the extras alone
  points[0].serve.kv_offloading = "dram";
  points[0].serve.total_cpu_dram_gb = 1000;
  points[0].serve.extra_args = {"--kv_offloading_backend", "native", "--kv_offloading_size", "100"};
  points[1].serve.kv_offloading = "dram";
  points[1].serve.total_cpu_dram_gb = 1000;
  points[1].serve.engine = "sglang";
  points[1].serve.tp = 4;
  points[1].serve.extra_args = {"--enable-hierarchical-cache", "--hicache-size=60"};
  std::vector<std::string> notes;
  ASSERT_TRUE(RehearseOnSim(&points, {}, &notes).ok());
  EXPECT_NEAR(std::stod(points[0].serve.sim_options.at("kv-offload-gb")), 107.3741824, 1e-6);
  EXPECT_NEAR(std::stod(points[1].serve.sim_options.at("kv-offload-gb")), 240, 1e-9);
  for (const recipe::Point& p : points)
    EXPECT_EQ(p.serve.sim_options.count("enable-prefix-caching"), 1u);
  for (const auto& n : notes) {
    EXPECT_EQ(n.find("--kv_offloading_size"), std::string::npos) << n;
    EXPECT_EQ(n.find("--hicache-size"), std::string::npos) << n;
  }
}

// A captured InferenceX command carries the engine's flags itself: the sim takes those
// it has a meaning for from it, and says nothing of the rest (they go with the command).
TEST(SimRehearsalTest, ACapturedCommandsFlagsWithASimulatorMeaningAreTaken) {
  auto points =
      Expand({"src/recipe/testdata/nvidia-master.yaml"}, {"minimaxm3-fp8-h200-vllm-agentic-mtp"});
  ASSERT_FALSE(points.empty());
  points.resize(1);
  recipe::ServeSpec& s = points[0].serve;
  s.extra_args.clear();
  s.command.argv = {"vllm",
                    "serve",
                    "MiniMaxAI/MiniMax-M3-MXFP8",
                    "--max-num-seqs",
                    "24",
                    "--enable-prefix-caching",
                    "--block-size=128",
                    "--trust-remote-code"};
  std::vector<std::string> notes;
  ASSERT_TRUE(RehearseOnSim(&points, {}, &notes).ok());
  const auto& o = points[0].serve.sim_options;
  EXPECT_EQ(o.at("max-num-seqs"), "24");
  EXPECT_EQ(o.at("block-size"), "128");
  EXPECT_EQ(o.count("enable-prefix-caching"), 1u);
  EXPECT_TRUE(points[0].serve.command.argv.empty());
  for (const auto& n : notes) EXPECT_EQ(n.find("--trust-remote-code"), std::string::npos) << n;
}

}  // namespace
}  // namespace servebench::run
