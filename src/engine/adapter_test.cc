#include "engine/adapter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "engine/command_display.h"
#include "engine/testing/golden.h"

namespace servebench::engine {
namespace {

using recipe::AcceptanceMode;
using recipe::ServeSpec;
using recipe::SpecMethod;
using testing::ExpectMatchesGolden;
using ::testing::HasSubstr;

const EngineCatalog& Catalog() {
  static const EngineCatalog* catalog = [] {
    auto loaded = LoadEngineCatalog(std::string(SERVEBENCH_SOURCE_DIR) + "/data/engine");
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return new EngineCatalog(std::move(loaded).value());
  }();
  return *catalog;
}

RenderOptions Options(int port = 8000) {
  RenderOptions options;
  options.port = port;
  options.work_dir = "/out/session-1";
  options.servebench_bin = "/usr/bin/servebench";
  return options;
}

std::string Render(const ServeSpec& spec, const RenderOptions& options = Options()) {
  auto command = RenderServerCommand(spec, options, Catalog());
  EXPECT_TRUE(command.ok()) << command.status().ToString();
  return command.ok() ? FormatCommandForDisplay(*command) : "";
}

std::vector<std::string> Split(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The seed nightly workload (data/seed/minimax_m3_mi355x.workload.yaml), as the
// recipe loader hands it over: TP and speculative decoding lifted out of serve_args
// into the ServeSpec, the remaining serve_args kept as extra_args in order.
constexpr char kSeedServeArgs[] =
    "--tensor-parallel-size 8 --trust-remote-code --tool-call-parser minimax_m3 "
    "--enable-auto-tool-choice --reasoning-parser minimax_m3 --speculative-config.method eagle3 "
    "--speculative-config.model Inferact/MiniMax-M3-EAGLE3 "
    "--speculative-config.num_speculative_tokens 3";

ServeSpec SeedNightlySpec() {
  ServeSpec spec;
  spec.engine = "vllm";
  spec.image = "vllm/vllm-openai-rocm:nightly";
  spec.model = "MiniMaxAI/MiniMax-M3-MXFP8";
  spec.hardware = "mi355x";
  spec.tp = 8;
  spec.extra_args = {"--trust-remote-code",       "--tool-call-parser", "minimax_m3",
                     "--enable-auto-tool-choice", "--reasoning-parser", "minimax_m3"};
  spec.env = {{"VLLM_USE_BREAKABLE_CUDAGRAPH", "0"}};
  spec.spec.method = SpecMethod::kEagle3;
  spec.spec.draft_model = "Inferact/MiniMax-M3-EAGLE3";
  spec.spec.num_speculative_tokens = 3;
  return spec;
}

ServeSpec Eagle3Synthetic(const std::string& engine) {
  ServeSpec spec;
  spec.engine = engine;
  spec.model = "MiniMaxAI/MiniMax-M3-MXFP8";
  spec.tp = 8;
  spec.ep = 8;
  spec.dp_attn = true;
  spec.max_model_len = 9472;
  spec.kv_cache_dtype = "fp8";
  spec.spec.method = SpecMethod::kEagle3;
  spec.spec.draft_model = "Inferact/MiniMax-M3-EAGLE3";
  spec.spec.num_speculative_tokens = 3;
  spec.spec.acceptance = AcceptanceMode::kSyntheticGolden;
  spec.spec.synthetic_acceptance_length = 2.78;  // minimaxm3_eagle3_gqa, thinking on, N=3
  return spec;
}

TEST(AdapterTest, SeedNightlyWorkloadRendersItsServeArgsExactlyAndInOrder) {
  auto command = RenderServerCommand(SeedNightlySpec(), Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  // perf-eval runs `vllm serve <model> --port <port> <serve_args>`; servebench adds --host.
  std::vector<std::string> expected = {
      "vllm", "serve", "MiniMaxAI/MiniMax-M3-MXFP8", "--host", "127.0.0.1", "--port", "8000"};
  for (const auto& w : Split(kSeedServeArgs)) expected.push_back(w);
  EXPECT_EQ(command->argv, expected);
  EXPECT_EQ(command->env.at("VLLM_USE_BREAKABLE_CUDAGRAPH"), "0");
  EXPECT_EQ(command->readiness_timeout_s, 1800);
  ExpectMatchesGolden("vllm_seed_minimax_m3_mi355x_eagle3", FormatCommandForDisplay(*command));
}

TEST(AdapterTest, SeedNightlyWorkloadInDockerOnMi355x) {
  RenderOptions options = Options();
  options.container.kind = ContainerProfile::Kind::kDocker;
  options.container.run_args = {"--device", "/dev/kfd",    "--device",
                                "/dev/dri", "--group-add", "video"};
  options.container.mounts = {"/data/hf:/root/.cache/huggingface"};
  options.container.name = "servebench-minimax-m3";
  auto command = RenderServerCommand(SeedNightlySpec(), options, Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  EXPECT_TRUE(command->env.empty()) << "env moves into -e flags";
  EXPECT_THAT(command->cleanup_argv,
              ::testing::ElementsAre("docker", "rm", "-f", "servebench-minimax-m3"));
  ExpectMatchesGolden("vllm_seed_docker", FormatCommandForDisplay(*command));
}

TEST(AdapterTest, InferencexSeedDpAttentionRowOnVllm) {
  // minimaxm3-fp8-mi355x-vllm-mtp, 8k1k row { tp: 8, ep: 8, dp-attn: true }.
  ServeSpec spec;
  spec.engine = "vllm";
  spec.model = "MiniMaxAI/MiniMax-M3-MXFP8";
  spec.tp = 8;
  spec.ep = 8;
  spec.dp_attn = true;
  spec.max_model_len = 9472;
  spec.spec.method = SpecMethod::kMtp;
  spec.spec.num_speculative_tokens = 3;
  spec.spec.acceptance = AcceptanceMode::kSyntheticGolden;
  spec.spec.synthetic_acceptance_length = 2.78;
  ExpectMatchesGolden("vllm_inferencex_seed_dp_attn_mtp", Render(spec));
}

TEST(AdapterTest, VllmPlainTensorParallel) {
  ServeSpec spec;
  spec.engine = "vllm";
  spec.model = "meta-llama/Llama-3.1-70B-Instruct";
  spec.served_model_name = "llama70b";
  spec.tp = 4;
  spec.pp = 2;
  spec.max_model_len = 4096;
  ExpectMatchesGolden("vllm_tp4_pp2", Render(spec));
}

// `servebench run --profile`: each stack's profiler variable names the folder, over
// the recipe's own value; stacks without profiler endpoints get nothing.
TEST(AdapterTest, ProfileDirSetsEachStacksProfilerVariable) {
  RenderOptions options = Options();
  options.profile_dir = "/out/profiles/s1-0";
  for (const auto& [engine, var] :
       std::vector<std::pair<std::string, std::string>>{{"vllm", "VLLM_TORCH_PROFILER_DIR"},
                                                        {"sim", "VLLM_TORCH_PROFILER_DIR"},
                                                        {"sglang", "SGLANG_TORCH_PROFILER_DIR"}}) {
    ServeSpec spec;
    spec.engine = engine;
    spec.model = engine == "sim" ? "llama-3.1-8b" : "meta-llama/Llama-3.1-8B-Instruct";
    spec.env[var] = "/elsewhere";
    auto command = RenderServerCommand(spec, options, Catalog());
    ASSERT_TRUE(command.ok()) << engine << ": " << command.status().ToString();
    EXPECT_EQ(command->env.at(var), "/out/profiles/s1-0") << engine;
  }
  EXPECT_EQ(ProfilerEnvVar("trtllm"), nullptr);
  EXPECT_EQ(ProfilerEnvVar("llamacpp"), nullptr);
  ServeSpec plain;
  plain.engine = "vllm";
  plain.model = "meta-llama/Llama-3.1-8B-Instruct";
  auto command = RenderServerCommand(plain, Options(), Catalog());
  ASSERT_TRUE(command.ok());
  EXPECT_EQ(command->env.count("VLLM_TORCH_PROFILER_DIR"), 0u) << "off without --profile";
}

TEST(AdapterTest, SglangEagle3SyntheticUsesSimulateAccEnv) {
  auto command = RenderServerCommand(Eagle3Synthetic("sglang"), Options(30000), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  EXPECT_EQ(command->env.at("SGLANG_SIMULATE_ACC_LEN"), "2.78");
  EXPECT_EQ(command->env.at("SGLANG_SIMULATE_ACC_METHOD"), "match-expected");
  ExpectMatchesGolden("sglang_eagle3_synthetic_dp_attn", FormatCommandForDisplay(*command));
}

TEST(AdapterTest, TrtllmForcedAcceptedTokensIsAlMinusOne) {
  auto command = RenderServerCommand(Eagle3Synthetic("trtllm"), Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  // AL 2.78 counts the target's token; the knob counts accepted drafts: 1.78.
  EXPECT_EQ(command->env.at("TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS"), "1.78");
  ASSERT_EQ(command->files.size(), 1u);
  EXPECT_EQ(command->files[0].path, "/out/session-1/trtllm-config.yaml");
  ExpectMatchesGolden("trtllm_eagle3_synthetic_dp_attn", FormatCommandForDisplay(*command));
}

TEST(AdapterTest, TrtllmUnderMpirunWhenTheLauncherIsAskedFor) {
  RenderOptions options = Options();
  options.use_launcher = true;
  auto command = RenderServerCommand(Eagle3Synthetic("trtllm"), options, Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  EXPECT_THAT(command->argv, ::testing::ElementsAreArray(
                                 std::vector<std::string>{"mpirun",
                                                          "-n",
                                                          "1",
                                                          "--oversubscribe",
                                                          "--allow-run-as-root",
                                                          "trtllm-serve",
                                                          "MiniMaxAI/MiniMax-M3-MXFP8",
                                                          "--host",
                                                          "127.0.0.1",
                                                          "--port",
                                                          "8000",
                                                          "--backend",
                                                          "pytorch",
                                                          "--tp_size",
                                                          "8",
                                                          "--ep_size",
                                                          "8",
                                                          "--max_seq_len",
                                                          "9472",
                                                          "--config",
                                                          "/out/session-1/trtllm-config.yaml"}));
  options.use_launcher = true;  // vllm has no launcher: unchanged
  EXPECT_EQ(RenderServerCommand(SeedNightlySpec(), options, Catalog())->argv[0], "vllm");
}

TEST(AdapterTest, TrtllmMtpUsesNextnLayers) {
  ServeSpec spec;
  spec.engine = "trtllm";
  spec.model = "deepseek-ai/DeepSeek-R1-0528";
  spec.tp = 8;
  spec.ep = 8;
  spec.spec.method = SpecMethod::kMtp;
  spec.spec.num_speculative_tokens = 2;
  ExpectMatchesGolden("trtllm_mtp", Render(spec));
}

TEST(AdapterTest, LlamacppEagle3SyntheticUsesSpecSynthLen) {
  ServeSpec spec;
  spec.engine = "llamacpp";
  spec.model = "/models/llama-3.1-8b-q8_0.gguf";
  spec.max_model_len = 8192;
  spec.kv_cache_dtype = "q8_0";
  spec.spec.method = SpecMethod::kEagle3;
  spec.spec.draft_model = "/models/llama-3.1-8b-eagle3.gguf";
  spec.spec.num_speculative_tokens = 4;
  spec.spec.acceptance = AcceptanceMode::kSyntheticTarget;
  spec.spec.synthetic_acceptance_length = 3.1;
  ExpectMatchesGolden("llamacpp_eagle3_synthetic", Render(spec, Options(8080)));
}

// llama-server decodes -np sequences at once: the session's highest concurrency.
// Its -c is shared by the slots, so each slot gets max_model_len. A draft model is
// draft-simple (-md alone drafts nothing).
TEST(AdapterTest, LlamacppSlotsFollowTheSessionConcurrencyAndEachHoldsMaxModelLen) {
  ServeSpec spec;
  spec.engine = "llamacpp";
  spec.model = "/models/tiny.gguf";
  spec.max_model_len = 2048;
  spec.spec.method = SpecMethod::kDraftModel;
  spec.spec.draft_model = "/models/tiny-draft.gguf";
  spec.spec.num_speculative_tokens = 4;
  RenderOptions options = Options(8080);
  options.max_concurrency = 4;
  std::string text = Render(spec, options);
  std::vector<std::string> w = Split(text);
  auto after = [&](const std::string& flag) {
    auto it = std::find(w.begin(), w.end(), flag);
    return it == w.end() || it + 1 == w.end() ? std::string("<absent>") : *(it + 1);
  };
  EXPECT_EQ(after("-np"), "4") << text;
  EXPECT_EQ(after("-c"), "8192") << text;
  EXPECT_EQ(after("--spec-type"), "draft-simple") << text;
  EXPECT_EQ(after("-md"), "/models/tiny-draft.gguf") << text;
  EXPECT_EQ(after("--spec-draft-n-max"), "4") << text;
  EXPECT_NE(std::find(w.begin(), w.end(), "--metrics"), w.end()) << text;
  // Without a known concurrency there is no -np, and -c is max_model_len itself.
  std::vector<std::string> plain = Split(Render(spec, Options(8080)));
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "-np"), plain.end());
  EXPECT_EQ(*(std::find(plain.begin(), plain.end(), "-c") + 1), "2048");
}

TEST(AdapterTest, SimTakesVllmNamesAndJsonSpeculativeConfig) {
  ServeSpec spec = Eagle3Synthetic("sim");
  spec.model = "minimax-m3";
  spec.ep = 1;
  spec.dp_attn = false;
  spec.readiness_timeout_s = 10;
  spec.hardware = "h200";  // overridden by the sim option below
  spec.precision = "fp8";
  spec.sim_options = {{"hardware", "mi355x"}, {"time-scale", "0.01"}, {"--seed", "7"}};
  auto command = RenderServerCommand(spec, Options(18000), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  EXPECT_EQ(command->argv[0], "/usr/bin/servebench");
  EXPECT_EQ(command->argv[1], "sim");
  EXPECT_EQ(command->readiness_timeout_s, 10);
  EXPECT_EQ(command->argv.back(),
            R"({"method":"eagle3","model":"Inferact/MiniMax-M3-EAGLE3","num_speculative_tokens":3,)"
            R"("rejection_sample_method":"synthetic","synthetic_acceptance_length":2.78})");
  ExpectMatchesGolden("sim_eagle3_synthetic", FormatCommandForDisplay(*command));
}

TEST(AdapterTest, ContainersWrapForPodmanEnrootAndSrun) {
  ServeSpec spec = Eagle3Synthetic("sglang");
  spec.image = "lmsysorg/sglang:v0.5.3-cu129";
  std::string all;
  for (auto [kind, name] : {std::pair{ContainerProfile::Kind::kPodman, "podman"},
                            std::pair{ContainerProfile::Kind::kEnroot, "enroot"},
                            std::pair{ContainerProfile::Kind::kSrun, "srun"}}) {
    RenderOptions options = Options(30000);
    options.container.kind = kind;
    options.container.mounts = {"/data/hf:/root/.cache/huggingface"};
    auto command = RenderServerCommand(spec, options, Catalog());
    ASSERT_TRUE(command.ok()) << command.status().ToString();
    EXPECT_EQ(command->argv[0], name);
    all += "## " + std::string(name) + "\n" + FormatCommandForDisplay(*command);
  }
  ExpectMatchesGolden("sglang_containers", all);
}

TEST(AdapterTest, ExtraArgOverridingAnOwnedFlagIsAnErrorNamingTheFlag) {
  struct Case {
    std::string engine, arg, flag;
  };
  for (const Case& c :
       std::vector<Case>{{"vllm", "--tensor-parallel-size", "--tensor-parallel-size"},
                         {"vllm", "-tp", "-tp"},
                         {"vllm", "--max-model-len=8192", "--max-model-len"},
                         {"vllm", "--speculative-config.method", "--speculative-config"},
                         {"sglang", "--tp-size", "--tp-size"},
                         {"trtllm", "--extra_llm_api_options", "--extra_llm_api_options"},
                         {"llamacpp", "--ctx-size", "--ctx-size"},
                         {"sim", "--port", "--port"}}) {
    ServeSpec spec;
    spec.engine = c.engine;
    spec.model = "m";
    spec.extra_args = {"--trust-remote-code", c.arg, "4"};
    auto command = RenderServerCommand(spec, Options(), Catalog());
    ASSERT_FALSE(command.ok()) << c.engine << " " << c.arg;
    EXPECT_EQ(command.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(command.status().message(),
                HasSubstr("flag " + c.flag + " is owned by the " + c.engine));
    EXPECT_THAT(command.status().message(), HasSubstr("serve.extra_args[1]"));
  }
}

TEST(AdapterTest, RecipeEnvSettingAnOwnedVariableIsAnError) {
  ServeSpec spec = Eagle3Synthetic("trtllm");
  spec.env["TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS"] = "2";
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_FALSE(command.ok());
  EXPECT_THAT(command.status().message(),
              HasSubstr("TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS is owned"));
}

TEST(AdapterTest, SettingsAnEngineCannotExpressAreErrors) {
  ServeSpec spec;
  spec.engine = "llamacpp";
  spec.model = "m.gguf";
  spec.dp = 2;
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.dp = 2"));
  spec.engine = "vllm";
  spec.dp = 1;
  spec.tp = 8;
  spec.ep = 4;
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.ep = 4"));
  spec.engine = "nope";
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("unknown engine"));
}

TEST(AdapterTest, SyntheticAcceptanceLengthOutsideOneToNPlusOneIsAnError) {
  ServeSpec spec = Eagle3Synthetic("vllm");
  spec.spec.synthetic_acceptance_length = 4.5;  // N = 3: at most 4
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_FALSE(command.ok());
  EXPECT_THAT(command.status().message(), HasSubstr("synthetic_acceptance_length = 4.5"));
  spec.spec.draft_model.clear();
  spec.spec.synthetic_acceptance_length = 2;
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.spec.draft_model is empty"));
}

TEST(AdapterTest, MultinodeDeploymentsAreRefused) {
  ServeSpec spec = SeedNightlySpec();
  spec.multinode = true;
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("single-node servers only"));
}

TEST(AdapterTest, FormatDecimalDropsBinaryNoise) {
  EXPECT_EQ(FormatDecimal(2.78 - 1.0), "1.78");
  EXPECT_EQ(FormatDecimal(3.0), "3");
  EXPECT_EQ(FormatDecimal(2.5), "2.5");
}

TEST(AdapterTest, ShellQuoteQuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(ShellQuote("--port"), "--port");
  EXPECT_EQ(ShellQuote(R"({"a":1})"), R"('{"a":1}')");
  EXPECT_EQ(ShellQuote("it's"), R"('it'\''s')");
  EXPECT_EQ(ShellQuote(""), "''");
}

}  // namespace
}  // namespace servebench::engine
