// The native keys for exact launches: `command` (run as written), `env_from`,
// `prepare` and `warmups_per_concurrency` reach the points, and bad values are
// located errors.
#include <gtest/gtest.h>

#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

constexpr const char* kCaptured = R"(servebench: 1
recipes:
  m-fp8-mi355x:
    engine: vllm
    model: org/m
    hardware: mi355x
    env_from: {HIP_VISIBLE_DEVICES: ROCR_VISIBLE_DEVICES}
    prepare: [[hf, download, org/m], [hf, download, org/draft]]
    load: {backend: openai-chat, random_range_ratio: 0.8, warmups_per_concurrency: 2}
    scenarios:
      - isl: 1024
        osl: 1024
        search_space:
          - tp: 8
            concurrency: [1]
            env: {VLLM_ENGINE_READY_TIMEOUT_S: "3600"}
            command:
              argv: [vllm, serve, org/m, --port, "8888", --max-num-seqs, "2"]
              port: 8888
              files: [{path: "cfg/../x.yml", contents: "a: 1\n"}]
              source: "inferencex:benchmarks/single_node/fixed_seq_len/m_fp8_mi355x.sh"
          - tp: 8
            concurrency: [2]
            command:
              argv: [vllm, serve, org/m, --port, "8888", --max-num-seqs, "4"]
              port: 8888
)";

Plan ExpandText(const std::string& text) {
  Diagnostics d;
  RecipeSet set = LoadRecipeText(text, "captured.yaml", &d);
  EXPECT_TRUE(d.ok()) << d.ToString();
  auto plan = ExpandRecipes(set, MatrixFilters{});
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? *plan : Plan{};
}

std::string Problems(const std::string& text) {
  Diagnostics d;
  LoadRecipeText(text, "bad.yaml", &d);
  return d.ToString();
}

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(NativeLaunchTest, CommandEnvFromPrepareAndWarmupsReachEveryPoint) {
  Plan plan = ExpandText(kCaptured);
  ASSERT_EQ(plan.points.size(), 2u);
  const ServeSpec& first = plan.points[0].serve;
  EXPECT_EQ(first.command.argv.back(), "2");
  EXPECT_EQ(first.command.port, 8888);
  ASSERT_EQ(first.command.files.size(), 1u);
  EXPECT_EQ(first.command.files[0].path, "cfg/../x.yml");
  EXPECT_EQ(first.command.files[0].contents, "a: 1\n");
  EXPECT_EQ(first.env.at("VLLM_ENGINE_READY_TIMEOUT_S"), "3600");
  EXPECT_EQ(first.env_from.at("HIP_VISIBLE_DEVICES"), "ROCR_VISIBLE_DEVICES");
  ASSERT_EQ(first.prepare.size(), 2u);
  EXPECT_EQ(first.prepare[1], (std::vector<std::string>{"hf", "download", "org/draft"}));
  EXPECT_EQ(plan.points[1].serve.command.argv.back(), "4");
  EXPECT_EQ(plan.points[1].serve.env.count("VLLM_ENGINE_READY_TIMEOUT_S"), 0u);
  EXPECT_EQ(plan.points[0].load.warmups_per_concurrency, 2);  // 2 × 1 warm-ups, then 2 × 2
  EXPECT_EQ(plan.points[1].load.num_warmups, 0);
  EXPECT_EQ(plan.points[0].load.endpoint, "/v1/chat/completions");
  // The command differs with the concurrency, so each point has its own server.
  EXPECT_EQ(GroupSessions(plan.points).size(), 2u);
}

TEST(NativeLaunchTest, ExtraArgumentsCannotBeAppendedToAVerbatimCommand) {
  std::string bad =
      Replaced(kCaptured, "            concurrency: [2]\n",
               "            concurrency: [2]\n            extra_args: [--enforce-eager]\n");
  EXPECT_NE(Problems(bad).find("search_space[1]: has a command (run as written) and extra_args"),
            std::string::npos)
      << Problems(bad);
}

TEST(NativeLaunchTest, BadCommandFieldsAreLocatedErrors) {
  std::string port =
      Replaced(kCaptured, "port: 8888\n              files", "port: 0\n              files");
  EXPECT_NE(Problems(port).find("command.port: is 0; the port the command listens on"),
            std::string::npos)
      << Problems(port);
  std::string outside = Replaced(kCaptured, "cfg/../x.yml", "../x.yml");
  EXPECT_NE(Problems(outside).find("files[0].path: is '../x.yml'; a file path is relative"),
            std::string::npos)
      << Problems(outside);
  std::string absolute = Replaced(kCaptured, "cfg/../x.yml", "/etc/x.yml");
  EXPECT_NE(Problems(absolute).find("is '/etc/x.yml'"), std::string::npos);
  std::string empty = Replaced(kCaptured,
                               "argv: [vllm, serve, org/m, --port, \"8888\", "
                               "--max-num-seqs, \"4\"]",
                               "argv: []");
  EXPECT_NE(Problems(empty).find("command.argv: is empty"), std::string::npos) << Problems(empty);
  std::string folder = Replaced(
      kCaptured, "              source:", "              folder: work\n              source:");
  EXPECT_NE(Problems(folder).find("command.folder: is 'work'; the folder the command names as its "
                                  "own is an absolute path"),
            std::string::npos)
      << Problems(folder);
  std::string unquoted = Replaced(kCaptured, "\"4\"]", "4]");
  EXPECT_NE(Problems(unquoted).find("argv[6]: is "), std::string::npos) << Problems(unquoted);
}

TEST(NativeLaunchTest, BadEnvFromAndPrepareAreLocatedErrors) {
  std::string env = Replaced(kCaptured, "HIP_VISIBLE_DEVICES: ROCR", "HIP-DEVICES: ROCR");
  EXPECT_NE(Problems(env).find("env_from: HIP-DEVICES: ROCR_VISIBLE_DEVICES: both sides"),
            std::string::npos)
      << Problems(env);
  std::string prepare = Replaced(kCaptured, "[hf, download, org/draft]", "[]");
  EXPECT_NE(Problems(prepare).find("prepare[1]: expected a non-empty list"), std::string::npos)
      << Problems(prepare);
  std::string both = Replaced(kCaptured, "warmups_per_concurrency: 2",
                              "warmups_per_concurrency: 2, num_warmups: 3");
  EXPECT_NE(Problems(both).find("num_warmups and warmups_per_concurrency are alternatives"),
            std::string::npos)
      << Problems(both);
}

}  // namespace
}  // namespace servebench::recipe
