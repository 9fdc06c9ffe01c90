// InferenceX's result file names, as its workflow and processor spell and parse them.
#include "recipe/result_name.h"

#include <gtest/gtest.h>

#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

const std::string kData = std::string(SERVEBENCH_SOURCE_DIR) + "/src/recipe/testdata/";

TEST(ResultNameTest, SingleNodeSeedRowIsTheWorkedExampleOfTheReference) {
  Diagnostics d;
  RecipeSet set = LoadRecipes({kData + "minimaxm3-mi355x-mtp.inferencex.yaml"}, &d);
  MatrixFilters f;
  f.evals = EvalSelection::kNone;
  auto plan = ExpandRecipes(set, f);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const Point& row0 = plan->points.front();
  ASSERT_EQ(row0.serve.tp, 8);
  ASSERT_EQ(row0.load.concurrency, 1);
  EXPECT_EQ(InferenceXResultName(row0, "mi355x-amds_03", {}),
            "minimaxm3_1k1k_fp8_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc1_"
            "mi355x-amds_03");
}

TEST(ResultNameTest, MultinodeNameCarriesBothRolesAndTheGpuSplitItsProcessorParses) {
  Point p;
  p.exp_name = "dsr1_8k1k";
  p.serve.precision = "fp8";
  p.serve.framework = "sglang-disagg";
  p.serve.multinode = p.serve.disagg = true;
  p.serve.prefill = {1, 4, 1, 1, false, 1, 1, "", {}, 1};
  p.serve.decode = {2, 8, 1, 8, true, 1, 1, "", {}, 2};
  p.load.concurrency = 64;
  const std::string base = InferenceXResultName(p, "mi355x-disagg_0", {64, 128, 256});
  EXPECT_EQ(base,
            "dsr1_8k1k_fp8_sglang-disagg_prefill-tp4-pp1-dcp1-pcp1-ep1-dpfalse-nw1_decode-tp8-pp1-"
            "dcp1-pcp1-ep8-dptrue-nw2_disagg-true_spec-none_conc64x128x256_mi355x-disagg_0");
  EXPECT_EQ(MultinodeResultFile(base, 64, 4, 16), base + "_conc64_gpus_20_ctx_4_gen_16.json");
  // Aggregated: no _ctx_/_gen_, which InferenceX reads as P = G, D = 0.
  EXPECT_EQ(MultinodeResultFile(base, 8, 16, 0), base + "_conc8_gpus_16.json");
}

}  // namespace
}  // namespace servebench::recipe
