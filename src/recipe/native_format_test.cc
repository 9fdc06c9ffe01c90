// The native and nightly formats: the shipped examples load and expand as their
// comments say, and speculative decoding resolves to the right acceptance targets.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

const std::string kRoot = std::string(SERVEBENCH_SOURCE_DIR) + "/";

Plan Expand(const std::vector<std::string>& files, MatrixFilters f = {}) {
  Diagnostics d;
  RecipeSet set = LoadRecipes(files, &d);
  EXPECT_TRUE(d.ok()) << d.ToString();
  auto plan = ExpandRecipes(set, f);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : Plan{};
}

TEST(NativeFormatTest, QuickstartIsFourSimSessionsOfSevenConcurrencies) {
  Plan plan = Expand({kRoot + "examples/quickstart.yaml"});
  ASSERT_EQ(plan.points.size(), 28u);
  auto sessions = GroupSessions(plan.points);
  ASSERT_EQ(sessions.size(), 4u);
  int with_eagle = 0;
  for (const auto& s : sessions) {
    std::vector<int> concs;
    for (const auto& p : s.points) concs.push_back(p.load.concurrency);
    EXPECT_EQ(concs, (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
    const ServeSpec& v = s.points[0].serve;
    EXPECT_EQ(v.engine, "sim");
    EXPECT_EQ(v.model, "llama-3.1-8b");
    EXPECT_EQ(v.hardware, "h200");
    EXPECT_EQ(v.max_model_len, 256 + 128 + 256);
    EXPECT_EQ(v.sim_options.at("hardware"), "h200");
    EXPECT_EQ(v.sim_options.at("time-scale"), "0.05");
    EXPECT_EQ(s.points[0].load.isl, 256);
    EXPECT_EQ(s.points[0].load.osl, 128);
    EXPECT_EQ(s.points.back().load.num_prompts, 4 * 64);
    if (v.spec.method == SpecMethod::kEagle3) {
      ++with_eagle;
      EXPECT_EQ(v.spec.num_speculative_tokens, 3);
      EXPECT_EQ(v.spec.acceptance, AcceptanceMode::kSyntheticTarget);
      EXPECT_DOUBLE_EQ(v.spec.synthetic_acceptance_length, 2.5);
    }
  }
  EXPECT_EQ(with_eagle, 2);
}

// make demo-llamacpp's sweep: one llama.cpp target with and without its draft.
TEST(NativeFormatTest, LlamacppExampleIsTwoSessionsWithAndWithoutADraftModel) {
  Plan plan = Expand({kRoot + "examples/llamacpp.yaml"});
  ASSERT_EQ(plan.points.size(), 6u);
  auto sessions = GroupSessions(plan.points);
  ASSERT_EQ(sessions.size(), 2u);
  int with_draft = 0;
  for (const auto& s : sessions) {
    std::vector<int> concs;
    for (const auto& p : s.points) concs.push_back(p.load.concurrency);
    EXPECT_EQ(concs, (std::vector<int>{1, 2, 4}));
    const ServeSpec& v = s.points[0].serve;
    EXPECT_EQ(v.engine, "llamacpp");
    EXPECT_EQ(v.model, "out/llamacpp-models/tiny.gguf");
    EXPECT_EQ(v.max_model_len, 256 + 128 + 256);
    EXPECT_EQ(v.extra_args, (std::vector<std::string>{"-t", "1", "-td", "1", "--temp", "0"}));
    if (v.spec.method == SpecMethod::kDraftModel) {
      ++with_draft;
      EXPECT_EQ(v.spec.draft_model, "out/llamacpp-models/tiny-draft.gguf");
      EXPECT_EQ(v.spec.num_speculative_tokens, 4);
      EXPECT_EQ(v.spec.acceptance, AcceptanceMode::kReal);
    }
  }
  EXPECT_EQ(with_draft, 1);
}

TEST(NativeFormatTest, NativeSeedHasTheSamePointsAsTheInferenceXSeed) {
  Plan native = Expand({kRoot + "examples/minimaxm3-mi355x-mtp.yaml"});
  MatrixFilters no_evals;
  no_evals.evals = EvalSelection::kNone;
  Plan ix = Expand({kRoot + "src/recipe/testdata/minimaxm3-mi355x-mtp.inferencex.yaml"}, no_evals);
  auto shape = [](const Plan& p) {
    std::multiset<std::tuple<int, int, int, int, bool, int, int, std::string>> out;
    for (const auto& pt : p.points)
      out.insert({pt.load.isl, pt.load.osl, pt.serve.tp, pt.serve.ep, pt.serve.dp_attn,
                  pt.load.concurrency, pt.serve.max_model_len, pt.serve.image});
    return out;
  };
  EXPECT_EQ(native.points.size(), 53u);
  EXPECT_EQ(shape(native), shape(ix));
  // The seed PR's script verifies drafts with the target model (no synthetic
  // acceptance in its speculative config).
  EXPECT_EQ(native.points[0].serve.spec.method, SpecMethod::kEagle3);
  EXPECT_EQ(native.points[0].serve.spec.acceptance, AcceptanceMode::kReal);
  EXPECT_EQ(native.points[0].serve.spec.draft_model, "Inferact/MiniMax-M3-EAGLE3");
}

TEST(NativeFormatTest, NightlySeedLiftsOwnedFlagsOutOfServeArgs) {
  Plan plan = Expand({kRoot + "src/recipe/testdata/minimax_m3_mi355x.workload.yaml"});
  ASSERT_EQ(plan.points.size(), 1u);
  const Point& p = plan.points[0];
  EXPECT_EQ(p.recipe, "minimax_m3-mi355x");
  EXPECT_EQ(p.exp_name, "8k-in-1k-out-conc-128");
  EXPECT_TRUE(p.nightly);
  EXPECT_EQ(p.serve.engine, "vllm");
  EXPECT_EQ(p.serve.image, "vllm/vllm-openai-rocm:nightly");
  EXPECT_EQ(p.serve.hardware, "mi355x");
  EXPECT_EQ(p.serve.tp, 8);
  EXPECT_EQ(p.serve.precision, "fp8");
  EXPECT_EQ(p.serve.spec.method, SpecMethod::kEagle3);
  EXPECT_EQ(p.serve.spec.draft_model, "Inferact/MiniMax-M3-EAGLE3");
  EXPECT_EQ(p.serve.spec.num_speculative_tokens, 3);
  EXPECT_EQ(
      p.serve.extra_args,
      (std::vector<std::string>{"--trust-remote-code", "--tool-call-parser", "minimax_m3",
                                "--enable-auto-tool-choice", "--reasoning-parser", "minimax_m3"}));
  EXPECT_EQ(p.serve.env.at("VLLM_USE_BREAKABLE_CUDAGRAPH"), "0");
  EXPECT_EQ(p.load.concurrency, 128);
  EXPECT_EQ(p.load.num_prompts, 1280);
  EXPECT_EQ(p.load.isl, 8192);
  EXPECT_EQ(p.load.osl, 1024);
  EXPECT_TRUE(p.run_eval);
  ASSERT_EQ(p.evals.size(), 1u);
  EXPECT_EQ(p.evals[0].name, "gsm8k");
  EXPECT_EQ(p.evals[0].num_fewshot, 5);
}

TEST(NativeFormatTest, NativeNightlyExampleServesTheSameServer) {
  Plan nightly = Expand({kRoot + "src/recipe/testdata/minimax_m3_mi355x.workload.yaml"});
  Plan native = Expand({kRoot + "examples/minimax_m3_mi355x.nightly.yaml"});
  ASSERT_EQ(native.points.size(), 1u);
  const ServeSpec& a = nightly.points[0].serve;
  const ServeSpec& b = native.points[0].serve;
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.image, b.image);
  EXPECT_EQ(a.tp, b.tp);
  EXPECT_EQ(a.extra_args, b.extra_args);
  EXPECT_EQ(a.env, b.env);
  EXPECT_EQ(a.spec.method, b.spec.method);
  EXPECT_EQ(a.spec.draft_model, b.spec.draft_model);
  EXPECT_EQ(a.readiness_timeout_s, b.readiness_timeout_s);
  EXPECT_EQ(native.points[0].evals[0].num_fewshot, 5);
}

TEST(NativeFormatTest, EveryPointFieldCanBeWritten) {
  Diagnostics d;
  RecipeSet set = LoadRecipeText(R"(servebench: 1
recipes:
  full:
    engine: vllm
    model: org/model
    served_model_name: m
    image: vllm/vllm-openai:v1
    precision: fp8
    hardware: h200
    runner: h200-cw
    model_prefix: mp
    max_model_len: 4096
    kv_cache_dtype: fp8
    readiness_timeout_s: 900
    extra_args: [--enforce-eager]
    env: {A: "1"}
    nightly: true
    blocked: {reason: "OOM at tp1", link: "https://example.com/issue/1"}
    spec_decoding: {method: ngram, num_speculative_tokens: 4, extra: {prompt_lookup_max: "4"}}
    evals: {tasks: [gsm8k, {name: mmlu, num_fewshot: 0, model_args: {max_gen_toks: "64"}}], at: all}
    load: {backend: openai-chat, num_prompts: 50, request_rate_per_s: 2.5, num_warmups: 3,
           ignore_eos: false, repetitions: 3, random_range_ratio: 0.5, extra_args: [--seed, "1"]}
    scenarios:
      - isl: 100
        osl: 10
        dataset: sharegpt
        search_space:
          - {tp: 2, pp: 2, ep: 4, dp: 2, dp_attn: true, dcp_size: 2, pcp_size: 1,
             concurrency: [3, 5], extra_args: [--x], env: {B: "2"}}
)",
                                 "full.yaml", &d);
  ASSERT_TRUE(d.ok()) << d.ToString();
  auto plan = ExpandRecipes(set, MatrixFilters{});
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->points.size(), 2u);
  const Point& p = plan->points[1];
  EXPECT_EQ(p.serve.served_model_name, "m");
  EXPECT_EQ(p.serve.kv_cache_dtype, "fp8");
  EXPECT_EQ(p.serve.readiness_timeout_s, 900);
  EXPECT_EQ(p.serve.extra_args, (std::vector<std::string>{"--enforce-eager", "--x"}));
  EXPECT_EQ(p.serve.env.at("B"), "2");
  EXPECT_EQ(p.serve.dp, 2);
  EXPECT_EQ(p.serve.pp, 2);
  EXPECT_EQ(p.serve.ep, 4);
  EXPECT_TRUE(p.serve.dp_attn);
  EXPECT_EQ(p.serve.dcp_size, 2);
  EXPECT_EQ(p.serve.spec.method, SpecMethod::kNgram);
  EXPECT_EQ(p.serve.spec.extra.at("prompt_lookup_max"), "4");
  EXPECT_TRUE(p.blocked);
  EXPECT_EQ(p.blocked_reason, "OOM at tp1");
  EXPECT_TRUE(p.nightly);
  EXPECT_EQ(p.runner, "h200-cw");
  EXPECT_EQ(p.load.endpoint, "/v1/chat/completions");
  EXPECT_EQ(p.load.dataset, "sharegpt");
  EXPECT_EQ(p.load.num_prompts, 50);
  EXPECT_DOUBLE_EQ(p.load.request_rate_per_s, 2.5);
  EXPECT_EQ(p.load.repetitions, 3);
  EXPECT_EQ(p.load.num_warmups, 3);
  EXPECT_FALSE(p.load.ignore_eos);
  EXPECT_EQ(p.eval_tasks, (std::vector<std::string>{"gsm8k", "mmlu"}));
  EXPECT_EQ(p.evals[1].model_args.at("max_gen_toks"), "64");
  EXPECT_TRUE(plan->points[0].run_eval);  // at: all
}

// A prefix pool (dataset prefix_repetition): its keys reach the point, join its identity
// only for that dataset, and every bad combination is located.
std::string PoolRecipe(const std::string& load) {
  return R"(servebench: 1
recipes:
  pool:
    engine: sim
    model: llama-3.1-8b
    hardware: h200
    scenarios:
      - isl: 1024
        osl: 64
)" + load +
         R"(
        search_space:
          - {tp: 1, concurrency: [4]}
)";
}

TEST(NativeFormatTest, PrefixPoolKeysReachThePointAndItsIdentity) {
  auto expand = [](const std::string& load) {
    Diagnostics d;
    RecipeSet set = LoadRecipeText(PoolRecipe(load), "pool.yaml", &d);
    EXPECT_TRUE(d.ok()) << d.ToString();
    auto plan = ExpandRecipes(set, MatrixFilters{});
    EXPECT_TRUE(plan.ok() && plan->points.size() == 1u);
    return plan.ok() && !plan->points.empty() ? plan->points[0] : Point{};
  };
  const Point p = expand(
      "        dataset: prefix_repetition\n        prefix_len: 768\n        num_prefixes: 8\n"
      "        prefix_reuse_ratio: 0.75");
  EXPECT_EQ(p.load.dataset, "prefix_repetition");
  EXPECT_EQ(p.load.prefix_len, 768);
  EXPECT_EQ(p.load.num_prefixes, 8);
  EXPECT_DOUBLE_EQ(p.load.prefix_reuse_ratio, 0.75);
  const Point other = expand(
      "        dataset: prefix_repetition\n        prefix_len: 768\n        num_prefixes: 4");
  EXPECT_DOUBLE_EQ(other.load.prefix_reuse_ratio, 1.0);
  EXPECT_NE(p.point_id, other.point_id);
  // Other datasets keep their identity: no prefix_pool in their JSON.
  EXPECT_EQ(PointToJson(expand("        dataset: random")).find("prefix_pool"), std::string::npos);
  auto back = PointFromJson(PointToJson(p));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->load.num_prefixes, 8);
  EXPECT_DOUBLE_EQ(back->load.prefix_reuse_ratio, 0.75);
}

TEST(NativeFormatTest, PrefixPoolMistakesAreLocatedAndExplained) {
  for (const auto& [load, says] : std::vector<std::pair<std::string, std::string>>{
           {"        dataset: prefix_repetition", "needs prefix_len"},
           {"        dataset: prefix_repetition\n        prefix_len: 1024\n        num_prefixes: 2",
            "prefix_len 1024 with isl 1024"},
           {"        dataset: random\n        num_prefixes: 2",
            "this scenario's dataset is random"},
           {"        dataset: prefix_repetition\n        prefix_len: 8\n        num_prefixes: 2\n"
            "        prefix_reuse_ratio: 2",
            "prefix_reuse_ratio"},
           {"        dataset: prefix_repetition\n        prefix_len: 8\n        num_prefixes: 2\n"
            "        random_range_ratio: 0.5",
            "drop random_range_ratio"}}) {
    Diagnostics d;
    LoadRecipeText(PoolRecipe(load), "pool.yaml", &d);
    EXPECT_FALSE(d.ok()) << load;
    EXPECT_NE(d.ToString().find(says), std::string::npos) << d.ToString();
    EXPECT_NE(d.ToString().find("pool.yaml:"), std::string::npos) << d.ToString();
  }
}

}  // namespace
}  // namespace servebench::recipe
