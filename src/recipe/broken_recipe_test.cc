// Broken recipes: each gives a located message naming the problem, never a crash,
// a hang or unbounded memory. One test per kind of mistake.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

namespace fs = std::filesystem;

// A valid single-node InferenceX config whose first search-space entry is `entry`
// (on line 14); `top` adds top-level lines (after line 8).
std::string InferenceX(const std::string& entry, const std::string& top = "",
                       const std::string& runner = "mi355x") {
  return "cfg-fp8-mi355x-vllm:\n"  // 1
         "  image: img:1\n"        // 2
         "  model: org/model\n"    // 3
         "  model-prefix: m\n"     // 4
         "  precision: fp8\n"      // 5
         "  framework: vllm\n"     // 6
         "  runner: " +
         runner +
         "\n"                      // 7
         "  multinode: false\n" +  // 8
         top +
         "  scenarios:\n"         // 9
         "    fixed-seq-len:\n"   // 10
         "    - isl: 1024\n"      // 11
         "      osl: 1024\n"      // 12
         "      search-space:\n"  // 13
         "      - " +
         entry + "\n";  // 14
}

std::string Agentic(const std::string& entry, const std::string& item_extra = "",
                    const std::string& runner = "cluster:mi355x-amds") {
  return "ag-fp4-mi355x-vllm:\n"
         "  image: img:1\n"
         "  model: org/model\n"
         "  model-prefix: ag\n"
         "  precision: fp4\n"
         "  framework: vllm\n"
         "  runner: " +
         runner +
         "\n"
         "  multinode: false\n"
         "  scenarios:\n"
         "    agentic-coding:\n"
         "    - search-space:\n"
         "      - " +
         entry + "\n" + item_extra;
}

std::string Native(const std::string& recipe_body) {
  return "servebench: 1\n"
         "recipes:\n"
         "  r1:\n"
         "    engine: sim\n"
         "    model: llama-3.1-8b\n"
         "    hardware: h200\n" +
         recipe_body;
}

const char kNativeScenario[] =
    "    scenarios:\n"
    "      - isl: 256\n"
    "        osl: 128\n"
    "        search_space:\n"
    "          - {tp: 1, concurrency: [1, 2]}\n";

std::string Nightly(const std::string& extra_config = "", const std::string& gpu = "MI355X") {
  return "name: wl\n"
         "gpu: " +
         gpu +
         "\n"
         "vllm:\n"
         "  model: org/model-fp8\n"
         "  serve_args: --tensor-parallel-size 8\n"
         "vllm_bench:\n"
         "  configs:\n"
         "    - name: 1k\n"
         "      input_len: 1024\n"
         "      output_len: 128\n"
         "      num_prompts: 10\n"
         "      max_concurrency: 4\n" +
         extra_config;
}

struct Outcome {
  bool ok = true;
  std::string text;  // every diagnostic, then any expansion error
};

// Loads `text` as one file (and expands it when it loads) the way `validate` does.
Outcome Check(const std::string& text) {
  Diagnostics d;
  RecipeSet set = LoadRecipeText(text, "broken.yaml", &d);
  Outcome out{d.ok(), d.ToString()};
  if (out.ok) {
    auto plan = ExpandRecipes(set, MatrixFilters{});
    if (!plan.ok()) out = {false, plan.status().message()};
  }
  return out;
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("sb_recipe_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(path_ / name) << text;
    return (path_ / name).string();
  }
  std::string Path(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

#define EXPECT_BROKEN(outcome, needle)                             \
  do {                                                             \
    Outcome o_ = (outcome);                                        \
    EXPECT_FALSE(o_.ok) << "expected a problem, got none";         \
    EXPECT_NE(o_.text.find(needle), std::string::npos) << o_.text; \
  } while (0)

// ---- InferenceX master configs ----

TEST(BrokenRecipeTest, WrongTypeIsLocatedAndNamed) {
  EXPECT_BROKEN(
      Check(InferenceX("{ tp: eight, conc-start: 1, conc-end: 4 }")),
      "broken.yaml:14:15: cfg-fp8-mi355x-vllm.scenarios.fixed-seq-len[0].search-space[0].tp: "
      "is 'eight' (string); expected an integer");
}

TEST(BrokenRecipeTest, UnknownSearchSpaceFieldSuggestsTheClosest) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, conc-strat: 1, conc-end: 4 }")),
                "conc-strat: unknown field; allowed: tp, pp");
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, conc-strat: 1, conc-end: 4 }")),
                "did you mean 'conc-start'?");
}

TEST(BrokenRecipeTest, UnknownTopLevelFieldSuggestsTheClosest) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, conc-list: [1] }", "  modle: x\n")),
                "did you mean 'model'?");
}

TEST(BrokenRecipeTest, BothConcurrencyFormsAreRejected) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, conc-start: 1, conc-end: 4, conc-list: [1, 2] }")),
                "both conc-list and conc-start/conc-end are set");
}

TEST(BrokenRecipeTest, MissingConcurrencyIsRejected) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8 }")), "no concurrency given");
}

TEST(BrokenRecipeTest, ConcStartGreaterThanConcEnd) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, conc-start: 64, conc-end: 4 }")),
                "conc-start 64 is greater than conc-end 4");
}

TEST(BrokenRecipeTest, ConcurrencyMustBePositive) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, conc-list: [4, 0] }")),
                "search-space[0].conc-list[1]: is 0; conc-list entries must be > 0");
}

TEST(BrokenRecipeTest, TpNotDivisibleByDcpSize) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, dcp-size: 3, conc-list: [4] }")),
                "tp 8 is not divisible by dcp-size 3");
}

TEST(BrokenRecipeTest, StrictPositivePipelineParallel) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, pp: 0, conc-list: [4] }")),
                "pp: is 0; must be an integer > 0");
}

TEST(BrokenRecipeTest, UnknownSpecDecodingNamesTheAllowedValues) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, spec-decoding: eagle3, conc-list: [4] }")),
                "is 'eagle3'; allowed: mtp, draft_model or none");
}

TEST(BrokenRecipeTest, MissingRequiredField) {
  std::string text = InferenceX("{ tp: 8, conc-list: [4] }");
  text.erase(text.find("  image: img:1\n"), 15);
  EXPECT_BROKEN(Check(text), "cfg-fp8-mi355x-vllm.image: is required but missing");
}

TEST(BrokenRecipeTest, BoolFieldWithText) {
  std::string text = InferenceX("{ tp: 8, conc-list: [4] }");
  text.replace(text.find("multinode: false"), 16, "multinode: perhaps");
  EXPECT_BROKEN(Check(text), "multinode: is 'perhaps' (string); expected true or false");
}

TEST(BrokenRecipeTest, DisaggOnSingleNode) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, conc-list: [4] }", "  disagg: true\n")),
                "disagg needs multinode: true");
}

TEST(BrokenRecipeTest, AgenticNeedsAClusterRunner) {
  EXPECT_BROKEN(Check(Agentic("{ tp: 8, kv-offloading: none, conc-list: [4] }", "", "mi355x")),
                "must use a 'cluster:<name>' runner label");
}

TEST(BrokenRecipeTest, DramOffloadNeedsUtilization) {
  EXPECT_BROKEN(Check(Agentic("{ tp: 8, kv-offloading: dram, kv-offload-backend: {name: x}, "
                              "conc-list: [4] }")),
                "needs dram-utilization");
}

TEST(BrokenRecipeTest, DramUtilizationOutOfRange) {
  EXPECT_BROKEN(Check(Agentic("{ tp: 8, kv-offloading: none, conc-list: [4] }",
                              "      dram-utilization: 1.5\n")),
                "is '1.5'; must be a number in (0, 1]");
}

TEST(BrokenRecipeTest, OffloadBackendWithoutOffloading) {
  EXPECT_BROKEN(Check(Agentic("{ tp: 8, kv-offloading: none, kv-offload-backend: {name: x}, "
                              "conc-list: [4] }")),
                "can only be set when kv-offloading is not 'none'");
}

TEST(BrokenRecipeTest, ComponentVersionMayNotBeAnImage) {
  EXPECT_BROKEN(
      Check(InferenceX("{ tp: 8, router: {name: r, version: 'image:x'}, conc-list: [4] }")),
      "not an image reference");
}

TEST(BrokenRecipeTest, RouterDeclaredTwice) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, router: {name: r, version: '1'}, conc-list: [4] }",
                                 "  router: {name: r, version: '1'}\n")),
                "declare it in one place");
}

TEST(BrokenRecipeTest, TransferOnSingleNode) {
  EXPECT_BROKEN(Check(Agentic("{ tp: 8, kv-offloading: none, kv-p2p-transfer: nixl, "
                              "conc-list: [4] }")),
                "needs multinode: true");
}

TEST(BrokenRecipeTest, DisaggWithoutTransfer) {
  std::string text =
      "mn:\n  image: i\n  model: m\n  model-prefix: p\n  precision: fp8\n  framework: sglang\n"
      "  runner: mi355x\n  multinode: true\n  disagg: true\n  scenarios:\n    fixed-seq-len:\n"
      "    - isl: 1024\n      osl: 1024\n      search-space:\n"
      "      - prefill: {num-worker: 1, tp: 8, ep: 1, dp-attn: false}\n"
      "        decode: {num-worker: 1, tp: 8, ep: 1, dp-attn: false}\n"
      "        conc-list: [4]\n";
  EXPECT_BROKEN(Check(text), "disagg: true needs kv-p2p-transfer");
}

TEST(BrokenRecipeTest, WorkerHardwareOnOneSideOnly) {
  std::string text =
      "mn:\n  image: i\n  model: m\n  model-prefix: p\n  precision: fp8\n  framework: sglang\n"
      "  runner: mi355x\n  multinode: true\n  scenarios:\n    fixed-seq-len:\n"
      "    - isl: 1024\n      osl: 1024\n      search-space:\n"
      "      - prefill: {num-worker: 1, tp: 8, ep: 1, dp-attn: false, hardware: mi355x}\n"
      "        decode: {num-worker: 1, tp: 8, ep: 1, dp-attn: false}\n"
      "        conc-list: [4]\n";
  EXPECT_BROKEN(Check(text), "set it on both or neither");
}

TEST(BrokenRecipeTest, WildcardInConfigKey) {
  std::string text = InferenceX("{ tp: 8, conc-list: [4] }");
  text.replace(0, 19, "cfg-*-mi355x-vllm");
  EXPECT_BROKEN(Check(text), "config key contains '*'");
}

TEST(BrokenRecipeTest, DuplicateKeyInAMap) {
  EXPECT_BROKEN(Check(InferenceX("{ tp: 8, tp: 4, conc-list: [4] }")), "duplicate key");
}

TEST(BrokenRecipeTest, EmptyScenarios) {
  std::string text =
      "k:\n  image: i\n  model: m\n  model-prefix: p\n  precision: fp8\n  framework: vllm\n"
      "  runner: mi355x\n  multinode: false\n  scenarios: {}\n";
  EXPECT_BROKEN(Check(text), "no scenario");
}

TEST(BrokenRecipeTest, DuplicateKeysAcrossFiles) {
  TempDir dir;
  std::string a = dir.Write("a.yaml", InferenceX("{ tp: 8, conc-list: [4] }"));
  std::string b = dir.Write("b.yaml", InferenceX("{ tp: 4, conc-list: [8] }"));
  Diagnostics d;
  LoadRecipes({a, b}, &d);
  EXPECT_FALSE(d.ok());
  EXPECT_NE(d.ToString().find("b.yaml:1:1: cfg-fp8-mi355x-vllm: duplicate recipe name; already "
                              "defined at " +
                              a + ":1"),
            std::string::npos)
      << d.ToString();
}

TEST(BrokenRecipeTest, UnknownRunnerForDramBudget) {
  TempDir dir;
  std::string runners =
      dir.Write("runners.yaml", "labels:\n  cluster:mi355x-amds: [n1]\nhardware: {}\n");
  std::string cfg =
      dir.Write("cfg.yaml", Agentic("{ tp: 8, kv-offloading: dram, kv-offload-backend: {name: x}, "
                                    "conc-list: [4] }",
                                    "      dram-utilization: 0.5\n"));
  Diagnostics d;
  RecipeSet set = LoadRecipes({cfg, runners}, &d);
  ASSERT_TRUE(d.ok()) << d.ToString();
  auto plan = ExpandRecipes(set, MatrixFilters{});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("needs runner 'cluster:mi355x-amds' in the hardware "
                                         "section of runners.yaml"),
            std::string::npos)
      << plan.status().message();
}

TEST(BrokenRecipeTest, UnknownRunnerLabelFilter) {
  TempDir dir;
  std::string runners = dir.Write("runners.yaml", "labels:\n  mi355x: [n1]\n");
  std::string cfg = dir.Write("cfg.yaml", InferenceX("{ tp: 8, conc-list: [4] }"));
  Diagnostics d;
  RecipeSet set = LoadRecipes({cfg}, &d, runners);
  ASSERT_TRUE(d.ok()) << d.ToString();
  MatrixFilters f;
  f.runners = {"mi3555x"};
  auto plan = ExpandRecipes(set, f);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("--runner 'mi3555x' is not a label"), std::string::npos);
}

TEST(BrokenRecipeTest, UnknownRunnerLabelInConfigIsReported) {
  TempDir dir;
  std::string runners = dir.Write("runners.yaml", "labels:\n  mi355x: [n1]\n");
  std::string cfg = dir.Write("cfg.yaml", InferenceX("{ tp: 8, conc-list: [4] }", "", "mi3555x"));
  Diagnostics d;
  LoadRecipes({cfg}, &d, runners);
  // InferenceX accepts unknown labels (its full sweep has some), so this is a warning.
  EXPECT_NE(d.ToString().find("cfg.yaml:7:11: warning: cfg-fp8-mi355x-vllm.runner: is 'mi3555x', "
                              "not a label of"),
            std::string::npos)
      << d.ToString();
  EXPECT_NE(d.ToString().find("did you mean 'mi355x'?"), std::string::npos);
}

// ---- Not recipes at all ----

TEST(BrokenRecipeTest, InvalidYamlIsLocated) {
  EXPECT_BROKEN(Check("a:\n  b: [1, 2\n  c: 3\n"), "broken.yaml:");
  EXPECT_BROKEN(Check("a:\n  b: [1, 2\n  c: 3\n"), "invalid YAML");
}

TEST(BrokenRecipeTest, EmptyFile) { EXPECT_BROKEN(Check(""), "file is empty"); }

TEST(BrokenRecipeTest, CommentsOnlyFileIsEmpty) {
  EXPECT_BROKEN(Check("# nothing here\n"), "file is empty");
}

TEST(BrokenRecipeTest, BinaryGarbage) {
  std::string garbage;
  uint32_t x = 12345;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1664525u + 1013904223u;
    garbage.push_back(static_cast<char>(x >> 24));
  }
  EXPECT_BROKEN(Check(garbage), "binary data");
}

TEST(BrokenRecipeTest, HundredMegabyteFileIsRefusedWithoutReadingIt) {
  TempDir dir;
  std::string path = dir.Path("huge.yaml");
  { std::ofstream(path) << "a: 1\n"; }
  fs::resize_file(path, 100u << 20);  // sparse: no 100 MB written to disk
  Diagnostics d;
  LoadRecipes({path}, &d);
  EXPECT_FALSE(d.ok());
  EXPECT_NE(d.ToString().find("file is 104857600 bytes; a YAML file may be at most"),
            std::string::npos)
      << d.ToString();
}

TEST(BrokenRecipeTest, AliasBombIsStoppedByTheNodeBudget) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'k'; ++c, ++prev)
    bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
            prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + "]\n";
  EXPECT_BROKEN(Check(bomb), "alias bomb");
}

TEST(BrokenRecipeTest, DeepNestingIsRefusedBeforeParsing) {
  EXPECT_BROKEN(Check("a: " + std::string(100000, '[') + std::string(100000, ']') + "\n"),
                "nested too deeply");
  std::string dashes;
  for (int i = 0; i < 50000; ++i) dashes += "- ";
  EXPECT_BROKEN(Check(dashes + "x\n"), "nested too deeply");
}

TEST(BrokenRecipeTest, StrayTopLevelCommaDoesNotHangTheParser) {
  // yaml-cpp 0.7's LoadAll loops forever on this (found by the fuzzer).
  EXPECT_BROKEN(Check(","), "stray top-level ','");
}

TEST(BrokenRecipeTest, InvalidUtf8IsRefused) {
  EXPECT_BROKEN(Check("name: a\ngpu: H200\nvllm: {model: \"m\xff\"}\n"), "not valid UTF-8");
}

TEST(BrokenRecipeTest, NotANumberIsNotANumber) {
  EXPECT_BROKEN(
      Check(Native("    load: {random_range_ratio: .nan}\n" + std::string(kNativeScenario))),
      "expected a finite number");
}

TEST(BrokenRecipeTest, AListIsNotARecipe) { EXPECT_BROKEN(Check("- a\n- b\n"), "not a recipe"); }

TEST(BrokenRecipeTest, SeveralDocuments) {
  EXPECT_BROKEN(Check("a: 1\n---\nb: 2\n"), "holds 2 YAML documents");
}

// ---- Native ----

TEST(BrokenRecipeTest, NativeEvenRepetitions) {
  EXPECT_BROKEN(Check(Native("    load: {repetitions: 2}\n" + std::string(kNativeScenario))),
                "r1.load.repetitions: is 2; must be an odd number");
}

TEST(BrokenRecipeTest, NativeEagleNeedsADraftModel) {
  EXPECT_BROKEN(Check(Native("    spec_decoding: {method: eagle3, num_speculative_tokens: 3}\n" +
                             std::string(kNativeScenario))),
                "it needs draft_model");
}

TEST(BrokenRecipeTest, NativeSyntheticLengthAboveDraftsPlusOne) {
  EXPECT_BROKEN(Check(Native("    spec_decoding: {method: mtp, num_speculative_tokens: 3, "
                             "acceptance: {mode: synthetic, length: 5}}\n" +
                             std::string(kNativeScenario))),
                "is 5; an acceptance length is between 1 and num_speculative_tokens + 1 = 4");
}

TEST(BrokenRecipeTest, NativeUnknownGoldenTableSuggestsOne) {
  EXPECT_BROKEN(Check(Native("    spec_decoding: {method: mtp, num_speculative_tokens: 3, "
                             "acceptance: {mode: golden, table: minimaxm3_eagle3_gq, model: "
                             "minimax-m3}}\n" +
                             std::string(kNativeScenario))),
                "did you mean 'minimaxm3_eagle3_gqa'?");
}

TEST(BrokenRecipeTest, NativeRangeStartAboveEnd) {
  EXPECT_BROKEN(
      Check(Native("    scenarios:\n      - isl: 1\n        osl: 1\n        "
                   "search_space:\n          - {tp: 1, concurrency: {start: 8, end: 2}}\n")),
      "start 8 is greater than end 2");
}

TEST(BrokenRecipeTest, NativeMisspeltEngine) {
  std::string text = Native(kNativeScenario);
  text.replace(text.find("engine: sim"), 11, "engine: vlm");
  EXPECT_BROKEN(Check(text),
                "is 'vlm'; allowed: vllm, sglang, trtllm, llamacpp, sim or atom; "
                "did you mean 'vllm'?");
}

TEST(BrokenRecipeTest, NativePromptCountGivenTwoWays) {
  EXPECT_BROKEN(Check(Native("    load: {num_prompts: 10, prompts_per_concurrency: 4}\n" +
                             std::string(kNativeScenario))),
                "num_prompts and prompts_per_concurrency are alternatives");
}

TEST(BrokenRecipeTest, NativeUnknownFormatVersion) {
  EXPECT_BROKEN(Check("servebench: 2\nrecipes: {}\n"), "this build reads format version 1");
}

// ---- Nightly workloads ----

TEST(BrokenRecipeTest, NightlyUnknownGpu) {
  EXPECT_BROKEN(Check(Nightly("", "H100")),
                "gpu: is 'H100'; allowed: H200, B200, MI300X or MI355X");
}

TEST(BrokenRecipeTest, NightlyEvenRepetitions) {
  EXPECT_BROKEN(Check(Nightly("      repetitions: 2\n")), "repetitions is a positive odd integer");
}

TEST(BrokenRecipeTest, NightlyReservedBenchArg) {
  EXPECT_BROKEN(Check(Nightly("      args: {num_prompts: 5}\n")),
                "--num-prompts is set by the recipe itself");
}

TEST(BrokenRecipeTest, NightlyPromptListNeedsAConcurrencyList) {
  std::string text = Nightly();
  text.replace(text.find("num_prompts: 10"), 15, "num_prompts: [10, 20]");
  EXPECT_BROKEN(Check(text), "is a list but max_concurrency is not");
}

TEST(BrokenRecipeTest, NightlyDuplicateRunNames) {
  EXPECT_BROKEN(Check(Nightly("    - name: 1k\n      input_len: 1\n      output_len: 1\n"
                              "      num_prompts: 1\n      max_concurrency: 4\n")),
                "run name '1k-conc-4' is used twice");
}

TEST(BrokenRecipeTest, NightlyMisspeltConfigField) {
  EXPECT_BROKEN(Check(Nightly("      input_length: 5\n")), "did you mean 'input_len'?");
}

TEST(BrokenRecipeTest, NightlyWithNothingToRun) {
  EXPECT_BROKEN(Check("gpu: H200\nvllm: {model: m}\n"), "nothing to run");
}

TEST(BrokenRecipeTest, EveryProblemIsReportedInOnePass) {
  Outcome o = Check(InferenceX("{ tp: eight, pp: 0, spec-decoding: x, conc-start: 9, conc-end: 2 }",
                               "  modle: y\n"));
  EXPECT_FALSE(o.ok);
  for (const char* needle : {"tp: is 'eight'", "pp: is 0", "spec-decoding: is 'x'",
                             "conc-start 9 is greater", "did you mean 'model'"})
    EXPECT_NE(o.text.find(needle), std::string::npos) << needle << "\n" << o.text;
}

}  // namespace
}  // namespace servebench::recipe
