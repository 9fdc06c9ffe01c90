// The two "done when" checks of issue 2: servebench's expansion of InferenceX
// master configs equals InferenceX's own generator output (testdata/ holds copies
// of the configs and golden matrices, Apache-2.0, see testdata/README.md).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "recipe/canonical_json.h"
#include "recipe/matrix_output.h"
#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

const std::string kData = std::string(SERVEBENCH_SOURCE_DIR) + "/src/recipe/testdata/";

boost::json::array ReadJsonArray(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return boost::json::parse(ss.str()).as_array();
}

Plan Expand(const std::vector<std::string>& files, const MatrixFilters& filters) {
  Diagnostics diagnostics;
  RecipeSet set = LoadRecipes(files, &diagnostics);
  EXPECT_TRUE(diagnostics.ok()) << diagnostics.ToString();
  auto plan = ExpandRecipes(set, filters);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : Plan{};
}

TEST(InferenceXGoldenTest, SeedRecipeWithNoEvalsGivesThe53GoldenRowsAsASet) {
  MatrixFilters f;
  f.evals = EvalSelection::kNone;
  f.config_keys = {"minimaxm3-fp8-mi355x-vllm-mtp"};
  Plan plan = Expand({kData + "minimaxm3-mi355x-mtp.inferencex.yaml"}, f);
  boost::json::array golden = ReadJsonArray(kData + "seed-minimaxm3-mi355x-mtp.matrix.json");
  ASSERT_EQ(plan.rows.size(), 53u);
  ASSERT_EQ(golden.size(), 53u);
  std::multiset<std::string> ours, theirs;
  int at_2304 = 0, at_9472 = 0;
  for (const auto& row : plan.rows) {
    ours.insert(CanonicalJson(row));
    at_2304 += row.at("max-model-len").as_int64() == 2304;
    at_9472 += row.at("max-model-len").as_int64() == 9472;
  }
  for (const auto& row : golden) theirs.insert(CanonicalJson(row));
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(at_2304, 28);
  EXPECT_EQ(at_9472, 25);
}

TEST(InferenceXGoldenTest, FullSweepOverBothMasterConfigsMatchesGoldenRowForRow) {
  Plan plan = Expand({kData + "amd-master.yaml", kData + "nvidia-master.yaml",
                      kData + "runners.yaml"},
                     MatrixFilters{});
  boost::json::array golden = ReadJsonArray(kData + "full-sweep.matrix.json");
  ASSERT_EQ(plan.rows.size(), 1820u);
  ASSERT_EQ(golden.size(), plan.rows.size());
  int evals = 0;
  for (size_t i = 0; i < golden.size(); ++i) {
    // Same values and the same key order as InferenceX emits.
    ASSERT_EQ(OrderedJson(plan.rows[i]), OrderedJson(golden[i])) << "row " << i;
    auto* e = plan.rows[i].if_contains("run-eval");
    evals += e && e->as_bool();
  }
  EXPECT_EQ(evals, 519);
  // 2,078 concurrency points become 2,078 servebench points.
  EXPECT_EQ(plan.points.size(), 2078u);
}

TEST(InferenceXGoldenTest, JsonFormatIsOneLineOfInferenceXRows) {
  MatrixFilters f;
  f.evals = EvalSelection::kNone;
  Plan plan = Expand({kData + "minimaxm3-mi355x-mtp.inferencex.yaml"}, f);
  std::string json = RenderMatrix(plan, MatrixFormat::kJson, {});
  auto parsed = boost::json::parse(json).as_array();
  EXPECT_EQ(parsed.size(), 53u);
  EXPECT_EQ(json.find('\n'), json.size() - 1);
}

}  // namespace
}  // namespace servebench::recipe
