// The two "done when" checks of issue 2: servebench's expansion of InferenceX
// master configs equals InferenceX's own generator output (testdata/ holds copies
// of the configs and golden matrices, Apache-2.0, see testdata/README.md).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "common/sha256.h"
#include "recipe/canonical_json.h"
#include "recipe/matrix_output.h"
#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

// What record::ConfigLabel is to `servebench matrix` (recipe/ cannot include record/).
std::string TestLabel(const ServeSpec& serve) { return "label-tp" + std::to_string(serve.tp); }

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
  Plan plan =
      Expand({kData + "amd-master.yaml", kData + "nvidia-master.yaml", kData + "runners.yaml"},
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
  std::string json = RenderMatrix(plan, MatrixFormat::kJson, {}, TestLabel);
  auto parsed = boost::json::parse(json).as_array();
  EXPECT_EQ(parsed.size(), 53u);
  EXPECT_EQ(json.find('\n'), json.size() - 1);
}

// Filters and eval modes, checked against InferenceX's generator at 843c6254 run on
// the same files: row count and SHA-256 of its `json.dumps(rows)` output (kept as
// hashes so the test data stays small). Our `--format json` prints the same bytes.
struct FilterCase {
  const char* name;
  MatrixFilters filters;
  size_t rows;
  const char* sha256;
};

MatrixFilters With(std::function<void(MatrixFilters&)> edit) {
  MatrixFilters f;
  edit(f);
  return f;
}

// One test over every case, so the two master configs are parsed once.
TEST(InferenceXGoldenTest, FiltersAndEvalModesMatchInferenceXGeneratorByteForByte) {
  Diagnostics d;
  RecipeSet set = LoadRecipes(
      {kData + "amd-master.yaml", kData + "nvidia-master.yaml", kData + "runners.yaml"}, &d);
  const std::vector<FilterCase> cases = {
      FilterCase{"evals_only", With([](auto& f) { f.evals = EvalSelection::kOnly; }), 645,
                 "d8277b55c655b6d204c783cdf4f9730de9f377ed8f42a75b584f1846266b6f15"},
      FilterCase{"all_evals", With([](auto& f) { f.evals = EvalSelection::kAll; }), 1663,
                 "a91968312462b23380a29ddd1296dd5759d3643397d8fbc729d340fc5040eea7"},
      FilterCase{"all_evals_evals_only", With([](auto& f) { f.evals = EvalSelection::kOnlyAll; }),
                 1663, "a91968312462b23380a29ddd1296dd5759d3643397d8fbc729d340fc5040eea7"},
      FilterCase{"single_node_8k1k_fp8_sglang_vllm", With([](auto& f) {
                   f.evals = EvalSelection::kNone;
                   f.multi_node = false;
                   f.seq_lens = {"8k1k"};
                   f.precisions = {"fp8"};
                   f.frameworks = {"sglang", "vllm"};
                 }),
                 422, "c6711ce0b28e79c883edb320dcb643bff4aa5bcb6ceb819d260d1d8177cadcdf"},
      FilterCase{"multi_node_agentic", With([](auto& f) {
                   f.single_node = false;
                   f.scenario_types = {"agentic-coding"};
                 }),
                 264, "1571ea5c60a85f248895fc1f181772720b58579f6ea5f2cf934dc0093028d50b"},
      FilterCase{"runners_and_model_prefix", With([](auto& f) {
                   f.runners = {"mi355x", "h200"};
                   f.model_prefixes = {"dsr1"};
                 }),
                 77, "ad169e4ab1ab53dd5bb6b9e88b67ba5de49a749bade82373496fd609c21eb369"},
      FilterCase{"config_key_glob_and_conc", With([](auto& f) {
                   f.config_keys = {"dsr1-*"};
                   f.conc = {4, 64};
                 }),
                 105, "95efaaf3f764011de16774b4cbd757edb3b0f238ca68c1eb74ca67a326f96eb5"},
      FilterCase{"runner_node_filter", With([](auto& f) { f.runner_node_filter = "amds_0"; }), 3912,
                 "c5b5cdfd58fc6249236a146a3b43179098ae17f1e2bd74651c0313e0d1ce0a1f"}};
  for (const auto& c : cases) {
    auto plan = ExpandRecipes(set, c.filters);
    ASSERT_TRUE(plan.ok()) << c.name << ": " << plan.status().ToString();
    EXPECT_EQ(plan->rows.size(), c.rows) << c.name;
    std::string json = RenderMatrix(*plan, MatrixFormat::kJson, {}, TestLabel);
    json.pop_back();  // trailing newline
    EXPECT_EQ(Sha256Hex(json), c.sha256) << c.name;
  }
}

TEST(InferenceXGoldenTest, DramBudgetFollowsTheWorkedExample) {
  // inferencex-formats.md §5: cluster:mi355x-amds, utilization 0.50, tp 8 → 1499 GB.
  Plan plan = Expand({kData + "amd-master.yaml", kData + "runners.yaml"}, MatrixFilters{});
  bool found = false;
  for (const auto& row : plan.rows) {
    if (row.at("exp-name").as_string() == "kimik3_tp8_conc10_kvdram-vllm-simple_spec-mtp") {
      EXPECT_EQ(row.at("total-cpu-dram-gb").as_int64(), 1499);
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace servebench::recipe
