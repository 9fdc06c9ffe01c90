// The native keys for exact launches: `command` (run as written), `env_from`,
// `prepare` and `warmups_per_concurrency` reach the points, and bad values are
// located errors.
#include <gtest/gtest.h>

#include "recipe/hub_snapshot.h"
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

// An InferenceX agentic script's KV offload tier, written as the capture writes it.
constexpr const char* kAuxiliary =
    "              auxiliary:\n"
    "                - argv: [mooncake_master, --port, \"20888\"]\n"
    "                  env: {MOONCAKE_CONFIG_PATH: /workspace/results/mooncake_config.json}\n"
    "                - argv: [lmcache, server]\n"
    "                  env_from: {HIP_VISIBLE_DEVICES: ROCR_VISIBLE_DEVICES}\n";

TEST(NativeLaunchTest, AuxiliaryServersReachThePointAndItsIdentity) {
  std::string text = Replaced(kCaptured, "              source: \"inferencex:",
                              std::string(kAuxiliary) + "              source: \"inferencex:");
  Plan plan = ExpandText(text);
  ASSERT_EQ(plan.points.size(), 2u);
  const VerbatimCommand& c = plan.points[0].serve.command;
  ASSERT_EQ(c.auxiliary.size(), 2u);
  EXPECT_EQ(c.auxiliary[0].argv, (std::vector<std::string>{"mooncake_master", "--port", "20888"}));
  EXPECT_EQ(c.auxiliary[0].env.at("MOONCAKE_CONFIG_PATH"),
            "/workspace/results/mooncake_config.json");
  EXPECT_EQ(c.auxiliary[1].argv, (std::vector<std::string>{"lmcache", "server"}));
  EXPECT_TRUE(c.auxiliary[1].env.empty());
  EXPECT_EQ(c.auxiliary[1].env_from.at("HIP_VISIBLE_DEVICES"), "ROCR_VISIBLE_DEVICES");
  EXPECT_TRUE(plan.points[1].serve.command.auxiliary.empty());
  // Its environment is redacted where the engine's is (records, --dry-run).
  EXPECT_EQ(
      WithSecretsRedacted(plan.points[0]).serve.command.auxiliary[0].env.at("MOONCAKE_CONFIG_PATH"),
      kRedactedValue);
  Point shown = plan.points[0];
  shown.env_not_secret = {"MOONCAKE_CONFIG_PATH"};
  EXPECT_EQ(WithSecretsRedacted(shown).serve.command.auxiliary[0].env.at("MOONCAKE_CONFIG_PATH"),
            "/workspace/results/mooncake_config.json");
  // Part of the serve spec: the point JSON carries it and reads it back, and a point
  // without auxiliary servers keeps the id it had before the field existed.
  std::string json = PointToJson(plan.points[0]);
  EXPECT_NE(json.find("\"auxiliary\":[{\"argv\":[\"mooncake_master\""), std::string::npos) << json;
  EXPECT_EQ(PointToJson(plan.points[1]).find("auxiliary"), std::string::npos);
  auto back = PointFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(PointToJson(*back), json);
  EXPECT_EQ(back->serve.command.auxiliary[1].env_from, c.auxiliary[1].env_from);
  EXPECT_NE(ExpandText(kCaptured).points[0].point_id, plan.points[0].point_id);
  EXPECT_EQ(ExpandText(kCaptured).points[1].point_id, plan.points[1].point_id);
}

TEST(NativeLaunchTest, BadAuxiliaryServersAreLocatedErrors) {
  auto with = [](const std::string& aux) {
    return Replaced(kCaptured, "              source: \"inferencex:",
                    aux + "              source: \"inferencex:");
  };
  std::string empty = with("              auxiliary:\n                - argv: []\n");
  EXPECT_NE(Problems(empty).find("command.auxiliary[0].argv: is empty"), std::string::npos)
      << Problems(empty);
  std::string name = with(
      "              auxiliary:\n                - argv: [lmcache]\n"
      "                  env: {BAD-NAME: x}\n");
  EXPECT_NE(Problems(name).find("command.auxiliary[0].env: BAD-NAME: not an environment variable "
                                "name"),
            std::string::npos)
      << Problems(name);
  std::string key =
      with("              auxiliary:\n                - {argv: [lmcache], port: 1}\n");
  EXPECT_NE(Problems(key).find("command.auxiliary[0]"), std::string::npos) << Problems(key);
  EXPECT_NE(Problems(key).find("port"), std::string::npos) << Problems(key);
  std::string scalar = with("              auxiliary: lmcache\n");
  EXPECT_NE(Problems(scalar).find("command.auxiliary: expected a list of {argv, env, env_from}"),
            std::string::npos)
      << Problems(scalar);
}

// A router in front of the command (InferenceX's DP-attention scripts): read with its
// argv, env and port, redacted as the engine's env is, in the point JSON only when set.
TEST(NativeLaunchTest, ARouterInFrontOfTheCommandReachesThePointAndItsIdentity) {
  const std::string router =
      "              router:\n"
      "                argv: [vllm-router, --worker-urls, \"http://localhost:8889\", --port, "
      "\"8880\"]\n"
      "                env: {RUST_LOG: info}\n"
      "                env_from: {HIP_VISIBLE_DEVICES: ROCR_VISIBLE_DEVICES}\n"
      "                port: 8880\n";
  std::string text = Replaced(kCaptured, "              source: \"inferencex:",
                              router + "              source: \"inferencex:");
  Plan plan = ExpandText(text);
  ASSERT_EQ(plan.points.size(), 2u);
  const RouterCommand& r = plan.points[0].serve.command.router;
  EXPECT_EQ(r.argv, (std::vector<std::string>{"vllm-router", "--worker-urls",
                                              "http://localhost:8889", "--port", "8880"}));
  EXPECT_EQ(r.env.at("RUST_LOG"), "info");
  EXPECT_EQ(r.env_from.at("HIP_VISIBLE_DEVICES"), "ROCR_VISIBLE_DEVICES");
  EXPECT_EQ(r.port, 8880);
  EXPECT_TRUE(plan.points[1].serve.command.router.argv.empty());
  EXPECT_EQ(WithSecretsRedacted(plan.points[0]).serve.command.router.env.at("RUST_LOG"),
            kRedactedValue);
  std::string json = PointToJson(plan.points[0]);
  EXPECT_NE(json.find("\"router\":{\"argv\":[\"vllm-router\""), std::string::npos) << json;
  EXPECT_EQ(PointToJson(plan.points[1]).find("\"router\":{"), std::string::npos);
  auto back = PointFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(PointToJson(*back), json);
  EXPECT_EQ(ExpandText(kCaptured).points[1].point_id, plan.points[1].point_id);

  std::string same_port =
      Replaced(text, "                port: 8880\n",
               "                port: " + std::to_string(plan.points[0].serve.command.port) + "\n");
  EXPECT_NE(Problems(same_port).find("command.router: port is"), std::string::npos)
      << Problems(same_port);
  std::string no_port = Replaced(text, "                port: 8880\n", "");
  EXPECT_NE(Problems(no_port).find("command.router.port"), std::string::npos) << Problems(no_port);
  std::string bad_from = Replaced(text, "ROCR_VISIBLE_DEVICES}\n                port: 8880",
                                  "ROCR-VISIBLE}\n                port: 8880");
  EXPECT_NE(Problems(bad_from).find("command.router.env_from"), std::string::npos)
      << Problems(bad_from);
}

// An agentic-coding scenario: a trace replay for a duration, no lengths, each entry
// with its KV offload tier; its points are InferenceX's agentic rows' (exp name, load).
constexpr const char* kAgentic = R"(servebench: 1
recipes:
  m-fp8-h200-agentic:
    engine: vllm
    model: org/m
    model_prefix: m
    hardware: h200
    max_model_len: auto
    scenarios:
      - scenario: agentic-coding
        duration_s: 1800
        search_space:
          - tp: 8
            spec_decoding: {method: mtp, num_speculative_tokens: 3}
            concurrency: [4]
          - tp: 8
            concurrency: [8]
            kv_offloading: dram
            kv_offload_backend: mooncake
            kv_offload_backend_version: "0.3.11"
            total_cpu_dram_gb: 1031
      - isl: 1024
        osl: 1024
        search_space:
          - {tp: 8, concurrency: [4]}
)";

TEST(NativeLaunchTest, AnAgenticScenarioGivesInferenceXsAgenticPoints) {
  Plan plan = ExpandText(kAgentic);
  ASSERT_EQ(plan.points.size(), 3u);
  const Point& none = plan.points[0];
  EXPECT_EQ(none.load.scenario, "agentic-coding");
  EXPECT_EQ(none.load.dataset, "agentic-coding");
  EXPECT_EQ(none.load.endpoint, "/v1/chat/completions");
  EXPECT_TRUE(none.load.ignore_eos);
  EXPECT_EQ(none.load.duration_s, 1800);
  EXPECT_EQ(none.load.isl, 0);
  EXPECT_EQ(none.serve.max_model_len, 0) << "auto: the model's own context length";
  EXPECT_EQ(none.serve.kv_offloading, "none");
  EXPECT_EQ(none.exp_name, "m_tp8_conc4_kvnone_spec-mtp");
  const Point& dram = plan.points[1];
  EXPECT_EQ(dram.serve.kv_offloading, "dram");
  EXPECT_EQ(dram.serve.kv_offload_backend, "mooncake");
  EXPECT_EQ(dram.serve.kv_offload_backend_version, "0.3.11");
  EXPECT_EQ(dram.serve.total_cpu_dram_gb, 1031);
  EXPECT_EQ(dram.exp_name, "m_tp8_conc8_kvdram-mooncake");
  EXPECT_EQ(plan.points[2].load.scenario, "fixed-seq-len");
  EXPECT_EQ(plan.points[2].serve.max_model_len, 1024 + 1024 + 256);
  EXPECT_EQ(plan.points[2].load.duration_s, 0);
}

// The router an InferenceX row names: entry fields, part of the point's identity.
TEST(NativeLaunchTest, AnEntrysRouterNameAndVersionReachThePoint) {
  std::string named =
      Replaced(kAgentic, "            total_cpu_dram_gb: 1031\n",
               "            total_cpu_dram_gb: 1031\n            router_name: sglang-router\n"
               "            router_version: \"0.3.2\"\n");
  Plan plan = ExpandText(named);
  ASSERT_EQ(plan.points.size(), 3u);
  EXPECT_EQ(plan.points[1].serve.router_name, "sglang-router");
  EXPECT_EQ(plan.points[1].serve.router_version, "0.3.2");
  EXPECT_TRUE(plan.points[0].serve.router_name.empty());
  EXPECT_NE(plan.points[1].point_id, ExpandText(kAgentic).points[1].point_id);
}

TEST(NativeLaunchTest, AgenticScenarioMistakesAreLocatedErrors) {
  std::string lengths = Replaced(kAgentic, "        duration_s: 1800\n",
                                 "        duration_s: 1800\n        isl: 1024\n");
  EXPECT_NE(Problems(lengths).find("scenarios[0].isl: is set in an agentic-coding scenario"),
            std::string::npos)
      << Problems(lengths);
  std::string tier = Replaced(kAgentic, "          - {tp: 8, concurrency: [4]}",
                              "          - {tp: 8, concurrency: [4], kv_offloading: none}");
  EXPECT_NE(Problems(tier).find("scenarios[1].search_space[0]: sets a KV offload tier"),
            std::string::npos)
      << Problems(tier);
  std::string unnamed = Replaced(kAgentic, "            kv_offload_backend: mooncake\n", "");
  EXPECT_NE(Problems(unnamed).find("kv_offloading: is 'dram'; name the tier in "
                                   "kv_offload_backend"),
            std::string::npos)
      << Problems(unnamed);
  EXPECT_NE(Problems(unnamed).find("kv_offload_backend_version: is set without kv_offload_backend"),
            std::string::npos)
      << Problems(unnamed);
  std::string versioned_router =
      Replaced(kAgentic, "            total_cpu_dram_gb: 1031\n",
               "            total_cpu_dram_gb: 1031\n            router_version: \"0.3.2\"\n");
  EXPECT_NE(Problems(versioned_router).find("router_version: is set without router_name"),
            std::string::npos)
      << Problems(versioned_router);
  std::string kind = Replaced(kAgentic, "scenario: agentic-coding", "scenario: agentic");
  EXPECT_NE(Problems(kind).find("scenarios[0].scenario"), std::string::npos) << Problems(kind);
  std::string fixed_duration =
      Replaced(kAgentic, "      - isl: 1024\n", "      - isl: 1024\n        duration_s: 60\n");
  EXPECT_NE(Problems(fixed_duration).find("duration_s: is set in a fixed-seq-len scenario"),
            std::string::npos)
      << Problems(fixed_duration);
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

// A value known only at launch, the snapshot folder of a hub repository in the HF
// cache: {hf_snapshot: REPO} as an argv item or an env_from value, its word in the
// point (shown in the point JSON: it holds no secret).
TEST(NativeLaunchTest, ASnapshotFolderTakenAtLaunchReachesThePointAsItsWord) {
  std::string text =
      Replaced(kCaptured, "argv: [vllm, serve, org/m, --port, \"8888\", --max-num-seqs, \"2\"]",
               "argv: [vllm, serve, {hf_snapshot: org/m}, --port, \"8888\"]");
  text = Replaced(text, "env_from: {HIP_VISIBLE_DEVICES: ROCR_VISIBLE_DEVICES}",
                  "env_from: {HIP_VISIBLE_DEVICES: ROCR_VISIBLE_DEVICES, MODEL_PATH: "
                  "{hf_snapshot: org/m}}");
  Plan plan = ExpandText(text);
  ASSERT_EQ(plan.points.size(), 2u);
  const ServeSpec& s = plan.points[0].serve;
  const std::string word = HubSnapshotWord("org/m");
  EXPECT_EQ(s.command.argv, (std::vector<std::string>{"vllm", "serve", word, "--port", "8888"}));
  EXPECT_EQ(s.env.at("MODEL_PATH"), word);
  EXPECT_EQ(s.env_from,
            (std::map<std::string, std::string>{{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}}));
  EXPECT_EQ(WithSecretsRedacted(plan.points[0]).serve.env.at("MODEL_PATH"), word);
}

TEST(NativeLaunchTest, BadSnapshotValuesAreLocatedErrors) {
  const std::string argv = "argv: [vllm, serve, org/m, --port, \"8888\", --max-num-seqs, \"4\"]";
  std::string repo = Replaced(kCaptured, argv, "argv: [vllm, serve, {hf_snapshot: m}]");
  EXPECT_NE(Problems(repo).find("argv[2].hf_snapshot: is 'm'; expected a hub repository id "
                                "ORG/NAME"),
            std::string::npos)
      << Problems(repo);
  std::string other = Replaced(kCaptured, argv, "argv: [vllm, serve, {model: org/m}]");
  EXPECT_NE(Problems(other).find("argv[2]: is a map other than {hf_snapshot: ORG/NAME}"),
            std::string::npos)
      << Problems(other);
  // The word spelled as a string is refused: the map is its one spelling.
  std::string spelled = Replaced(kCaptured, argv, "argv: [vllm, serve, \"{hf_snapshot:org/m}\"]");
  EXPECT_NE(Problems(spelled).find("argv[2]: is '{hf_snapshot:org/m}', which servebench reads as "
                                   "a snapshot word"),
            std::string::npos)
      << Problems(spelled);
  std::string env = Replaced(kCaptured, "HIP_VISIBLE_DEVICES: ROCR_VISIBLE_DEVICES",
                             "MODEL_PATH: {hf_snapshot: org}");
  EXPECT_NE(Problems(env).find("env_from.MODEL_PATH.hf_snapshot: is 'org'"), std::string::npos)
      << Problems(env);
}

TEST(HubSnapshotTest, WordsAreFoundReplacedAndSplitInAnyText) {
  const std::string word = HubSnapshotWord("org/m");
  EXPECT_EQ(word, "{hf_snapshot:org/m}");
  EXPECT_TRUE(IsHubSnapshotWord(word));
  EXPECT_FALSE(IsHubSnapshotWord("MODEL_PATH=" + word));
  const std::string text = "-e MODEL_PATH=" + word + " {hf_snapshot:bad} " + HubSnapshotWord("a/b");
  EXPECT_EQ(HubSnapshotsIn(text), (std::vector<std::string>{"org/m", "a/b"}));
  EXPECT_EQ(ReplaceHubSnapshots(text, [](const std::string& repo) { return "<" + repo + ">"; }),
            "-e MODEL_PATH=<org/m> {hf_snapshot:bad} <a/b>");
  auto pieces = SplitAtHubSnapshots(text);
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(pieces[0].text, "-e MODEL_PATH=");
  EXPECT_TRUE(pieces[1].is_snapshot);
  EXPECT_EQ(pieces[2].text, " {hf_snapshot:bad} ");
  EXPECT_EQ(HubCacheFolderName("MiniMaxAI/MiniMax-M3"), "models--MiniMaxAI--MiniMax-M3");
  EXPECT_TRUE(IsHubRepoId("Inferact/MiniMax-M3-EAGLE3-GQA"));
  EXPECT_FALSE(IsHubRepoId("org/"));
  EXPECT_FALSE(IsHubRepoId("org/m/extra"));
  EXPECT_FALSE(IsHubRepoId("../m"));
}

}  // namespace
}  // namespace servebench::recipe
