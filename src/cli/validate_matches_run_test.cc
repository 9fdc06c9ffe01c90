// `validate` knows everything `run` would reject (cli/preflight.h): each recipe here
// used to pass validate and fail only after an engine started. Now validate reports
// it at file:line:column and run refuses it with exit 1 before starting anything.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cli/cli_test_util.h"

namespace servebench::cli::testing {
namespace {

using ::testing::HasSubstr;

class ValidateMatchesRunTest : public CliTest {
 protected:
  // validate and run on `recipe`: both refuse with `message`, validate with a location
  // in the file, run without starting an engine.
  void ExpectBothRefuse(const std::string& recipe, const std::string& message,
                        const std::string& location = "recipe.yaml:") {
    ShellResult v = Servebench("validate " + recipe);
    EXPECT_EQ(v.exit_code, 1) << v.output;
    EXPECT_THAT(v.output, HasSubstr(message));
    EXPECT_THAT(v.output, HasSubstr(location));
    ShellResult r = Servebench("run " + recipe + RunFlags());
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr(message));
    EXPECT_THAT(r.output, HasSubstr("nothing was launched"));
    EXPECT_TRUE(NoEngineStarted()) << r.output;
  }
};

TEST_F(ValidateMatchesRunTest, AGoodRecipePassesBoth) {
  std::string recipe = SimRecipe();
  ShellResult v = Servebench("validate " + recipe);
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_THAT(v.output, HasSubstr("ok: 1 recipe(s), 1 point(s)"));
}

TEST_F(ValidateMatchesRunTest, SimModelNotInTheCatalogue) {
  std::string text = SimRecipe();
  std::string recipe = Write("recipe.yaml", [&] {
    std::string y = servebench::testing::ReadFileOrEmpty(text);
    y.replace(y.find("llama-3.1-8b"), 12, "llama-3.1-80b");
    return y;
  }());
  ExpectBothRefuse(recipe, "--model llama-3.1-80b: not in the catalogue", "recipe.yaml:5:12");
}

TEST_F(ValidateMatchesRunTest, SimModelWithALookAlikeUnicodeHyphenIsNamedAsSuch) {
  std::string y = servebench::testing::ReadFileOrEmpty(SimRecipe());
  y.replace(y.find("llama-3.1-8b"), 12, "llama\u20113.1-8b");  // U+2011 non-breaking hyphen
  std::string recipe = Write("recipe.yaml", y);
  ExpectBothRefuse(recipe, "non-ASCII character U+2011");
  EXPECT_THAT(Servebench("validate " + recipe).output, HasSubstr("a look-alike of '-'?"));
}

TEST_F(ValidateMatchesRunTest, SimGpuNotInTheCatalogue) {
  std::string y = servebench::testing::ReadFileOrEmpty(SimRecipe());
  y.replace(y.find("hardware: h200"), 14, "hardware: h201");
  ExpectBothRefuse(Write("recipe.yaml", y), "--hardware h201: not in the catalogue");
}

TEST_F(ValidateMatchesRunTest, UnknownSimFault) {
  std::string y = servebench::testing::ReadFileOrEmpty(SimRecipe());
  y.insert(y.find("      seed: 7"), "      faults:\n        http-501-rate: 0.1\n");
  ExpectBothRefuse(Write("recipe.yaml", y), "--fault-http-501-rate");
}

TEST_F(ValidateMatchesRunTest, AdapterOwnedFlagInExtraArgs) {
  std::string recipe =
      SimRecipe("recipe.yaml", "    extra_args: [\"--max-model-len\", \"4096\"]\n");
  ExpectBothRefuse(recipe, "is owned by the sim adapter", "recipe.yaml:12:");
}

TEST_F(ValidateMatchesRunTest, IslAboveTheModelsContext) {
  // llama-3.1-8b serves 131,072 tokens.
  std::string recipe = SimRecipe("recipe.yaml", "", "1", 140000, 8);
  ExpectBothRefuse(recipe, "exceed the 131072 tokens the simulated llama-3.1-8b serves");
}

TEST_F(ValidateMatchesRunTest, MaxModelLenBelowIslPlusOsl) {
  std::string recipe = SimRecipe("recipe.yaml", "    max_model_len: 32\n", "1", 32, 8);
  ExpectBothRefuse(recipe, "max_model_len 32 is below isl 32 + osl 8 = 40", "recipe.yaml:12:20");
}

TEST_F(ValidateMatchesRunTest,
       EvalsOnARealEngineWithoutDataAreAWarningForValidateAndAnErrorForRun) {
  std::string recipe = Write("recipe.yaml",
                             "servebench: 1\nrecipes:\n  door-vllm:\n    engine: vllm\n"
                             "    model: org/m\n    hardware: h200\n    evals: {tasks: [gsm8k]}\n"
                             "    scenarios:\n      - isl: 1024\n        osl: 1024\n"
                             "        search_space:\n          - tp: 1\n"
                             "            concurrency: 16\n");
  ShellResult v = Servebench("validate " + recipe);
  EXPECT_EQ(v.exit_code, 0) << v.output;
  EXPECT_THAT(v.output, HasSubstr("gsm8k needs its data"));
  ShellResult r = Servebench("run " + recipe + RunFlags());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("gsm8k needs its data"));
  EXPECT_TRUE(NoEngineStarted());
}

}  // namespace
}  // namespace servebench::cli::testing
