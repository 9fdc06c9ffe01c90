// Launch capture over the fixture checkout (testdata/inferencex): every script runs
// under the stand-ins; what each launched is captured exactly, a command that
// changes with CONC splits its session, scripts that cannot be captured say why,
// the dry run of every captured point starts exactly the captured argv and
// environment, and the native recipe written from the capture gives the same points.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "capture/capture.h"
#include "capture/recipe_writer.h"
#include "capture/testing/dry_run_replay.h"
#include "engine/engine.h"
#include "recipe/hub_snapshot.h"

namespace servebench::capture {
namespace {

using testing::FixtureRoot;
using ::testing::HasSubstr;

struct Captured {
  recipe::Plan plan;
  recipe::RunnerConfig runners;
  CaptureReport report;
};

// The fixture captured once for all tests (ten script runs).
const Captured& Fixture() {
  static const Captured* captured = [] {
    auto* c = new Captured;
    recipe::Diagnostics d;
    recipe::RecipeSet set = recipe::LoadRecipes(
        {FixtureRoot() + "/configs/fixture-master.yaml", FixtureRoot() + "/configs/runners.yaml"},
        &d);
    EXPECT_TRUE(d.ok()) << d.ToString();
    recipe::MatrixFilters filters;
    filters.evals = recipe::EvalSelection::kNone;
    auto plan = recipe::ExpandRecipes(set, filters);
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    c->plan = *plan;
    c->runners = set.runners;
    CaptureSettings settings;
    settings.inferencex_root = FixtureRoot();
    settings.jobs = 2;
    auto report = CaptureInferenceXLaunches(&c->plan, c->runners, settings);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (report.ok()) c->report = *report;
    return c;
  }();
  return *captured;
}

const KeyReport& Key(const std::string& name) {
  for (const auto& k : Fixture().report.keys)
    if (k.key == name) return k;
  ADD_FAILURE() << "no key " << name;
  static KeyReport none;
  return none;
}

const recipe::Point& PointAt(const std::string& key, int conc, bool dp_attn = false) {
  for (const auto& p : Fixture().plan.points)
    if (p.recipe == key && p.load.concurrency == conc && p.serve.dp_attn == dp_attn) return p;
  ADD_FAILURE() << "no point " << key << " conc " << conc;
  static recipe::Point none;
  return none;
}

TEST(CaptureFixtureTest, EachKeyIsCapturedOrSaysWhyNot) {
  const CaptureReport& r = Fixture().report;
  EXPECT_EQ(Key("tinyx-fp8-mi355x-vllm-mtp").captured, 4);
  EXPECT_EQ(Key("tinyx-fp4-b200-trt").captured, 2);
  EXPECT_EQ(Key("tinyx-fp8-h200-sglang").captured, 4);
  EXPECT_EQ(Key("tinyx-fp8-h200-vllm-agentic-mtp").captured, 3);
  EXPECT_EQ(Key("tinyx-fp8-b200-vllm-agentic").captured, 1);
  EXPECT_EQ(Key("tinyx-fp8-b200-sglang").captured, 3);  // one of them behind a router
  EXPECT_EQ(Key("tinyx-bf16-h100-vllm").captured, 1);
  EXPECT_EQ(Key("tinyx-fp8-h100-vllm").captured, 0);
  ASSERT_EQ(Key("tinyx-fp8-h100-vllm").failures.size(), 1u);
  EXPECT_THAT(Key("tinyx-fp8-h100-vllm").failures[0].first,
              HasSubstr("exited with code 1 before starting a server; last output: ERROR: the "
                        "image's torch sees no GPU"));
  ASSERT_EQ(Key("tinyx-fp8-mi300x-vllm").failures.size(), 1u);
  EXPECT_EQ(Key("tinyx-fp8-mi300x-vllm").failures[0].first,
            "no benchmark script: tried "
            "benchmarks/single_node/fixed_seq_len/tinyx_fp8_mi300x_vllm.sh, "
            "benchmarks/single_node/fixed_seq_len/tinyx_fp8_mi300x.sh");
  // Auxiliary servers started before the engine are captured with it.
  EXPECT_TRUE(Key("tinyx-fp8-h200-vllm-agentic-mtp").failures.empty());
  EXPECT_TRUE(Key("tinyx-fp8-b200-vllm-agentic").failures.empty());
  EXPECT_EQ(r.failed_points, 2);
  EXPECT_EQ(Key("tinyx-fp8-h200-sglang").scripts,
            std::vector<std::string>{"benchmarks/single_node/fixed_seq_len/"
                                     "tinyx_fp8_h200_sglang.sh"});
  std::string text = FormatCaptureReport(r, true);
  EXPECT_THAT(text, HasSubstr("tinyx-fp8-mi300x-vllm: captured 0/1 point(s)"));
  EXPECT_THAT(text, HasSubstr("7 key(s) captured, 0 partly, 2 not at all"));
}

// An agentic script's KV offload tier: mooncake_master started in the background
// before vLLM, with the config the script wrote for it, is captured as an auxiliary
// server of the session: its argv, its environment, the config (named by an absolute
// /workspace path through MOONCAKE_CONFIG_PATH, so /workspace is the folder).
TEST(CaptureFixtureTest, AuxiliaryServersStartedBeforeTheEngineAreCapturedWithIt) {
  const recipe::ServeSpec& s = PointAt("tinyx-fp8-b200-vllm-agentic", 4).serve;
  ASSERT_EQ(s.command.auxiliary.size(), 1u);
  const recipe::AuxiliaryCommand& master = s.command.auxiliary[0];
  EXPECT_EQ(master.argv, (std::vector<std::string>{"mooncake_master", "--port", "20888",
                                                   "--eviction_high_watermark_ratio=0.80",
                                                   "--eviction_ratio=0.10"}));
  // What the script exported before starting it (benchmark_lib's GPU_METRICS_CSV too).
  const std::map<std::string, std::string> exported = {
      {"GPU_METRICS_CSV", "gpu_metrics.csv"},
      {"MC_SLICE_SIZE", "1048576"},
      {"MOONCAKE_CONFIG_PATH", "/workspace/results/mooncake_config.json"},
      {"PYTHONHASHSEED", "0"}};
  EXPECT_EQ(master.env, exported);
  for (const auto& [name, value] : exported) EXPECT_EQ(s.env.at(name), value) << name;
  EXPECT_EQ(s.command.folder, "/workspace");
  ASSERT_EQ(s.command.files.size(), 1u);
  EXPECT_EQ(s.command.files[0].path, "results/mooncake_config.json");
  EXPECT_THAT(s.command.files[0].contents,
              HasSubstr("\"master_server_address\": \"127.0.0.1:20888\""));
  // The script's inline Python helper ran (the host's Python) and its answer is in
  // the config; the rail it picked from /sys/class/infiniband is the stand-in node's
  // first, and the capture says so.
  EXPECT_THAT(
      s.command.files[0].contents,
      HasSubstr(fmt::format("\"global_segment_size\": \"{}GB\"", s.total_cpu_dram_gb / s.tp)));
  EXPECT_THAT(s.command.files[0].contents, HasSubstr("\"device_name\": \"mlx5_0\""));
  EXPECT_THAT(engine::JoinForShell(s.command.argv),
              HasSubstr("--kv-transfer-config '{\"kv_connector\":\"MooncakeStoreConnector\""));
  std::string notes;
  for (const auto& n : Key("tinyx-fp8-b200-vllm-agentic").notes) notes += n + "\n";
  EXPECT_THAT(notes, ::testing::Not(HasSubstr("mooncake_master")));
  EXPECT_THAT(notes, HasSubstr("results/mooncake_config.json names the RDMA device mlx5_0, which "
                               "the script picked from the node's /sys/class/infiniband"));

  // The LMCache arm of the other agentic key: `lmcache server`, no file of its own,
  // captured after the script's health check on its --http-port answered.
  const recipe::ServeSpec& dram = PointAt("tinyx-fp8-h200-vllm-agentic-mtp", 8).serve;
  ASSERT_EQ(dram.command.auxiliary.size(), 1u);
  EXPECT_EQ(dram.command.auxiliary[0].argv,
            (std::vector<std::string>{"lmcache", "server", "--port", "5555", "--http-port", "5556",
                                      "--l1-size-gb", std::to_string(dram.total_cpu_dram_gb)}));
  EXPECT_TRUE(PointAt("tinyx-fp8-h200-vllm-agentic-mtp", 2).serve.command.auxiliary.empty());
}

// InferenceX's DP-attention scripts move the engine to PORT+1 and start a router on
// PORT in front of it once it is ready: the engine's command is captured as it ran, on
// its own port, and the router as the command's router (argv, environment, port),
// where the load goes; without DP attention the same script starts no router.
TEST(CaptureFixtureTest, ARouterInFrontOfTheEngineIsCapturedAsTheCommandsRouter) {
  const recipe::ServeSpec& s = PointAt("tinyx-fp8-b200-sglang", 8, true).serve;
  EXPECT_EQ(s.command.argv,
            (std::vector<std::string>{"python3", "-m", "sglang.launch_server", "--model-path",
                                      "tiny-org/TinyX-FP8", "--host", "0.0.0.0", "--port", "8889",
                                      "--tp", "8", "--dp", "8", "--enable-dp-attention",
                                      "--ep-size", "8", "--mem-fraction-static", "0.85"}));
  EXPECT_EQ(s.command.port, 8889);
  EXPECT_EQ(s.command.router.argv,
            (std::vector<std::string>{"python3", "-m", "sglang_router.launch_router",
                                      "--worker-urls", "http://localhost:8889", "--policy",
                                      "consistent_hashing", "--dp-aware", "--host", "0.0.0.0",
                                      "--port", "8888", "--prometheus-port", "18888"}));
  EXPECT_EQ(s.command.router.port, 8888);
  EXPECT_EQ(s.command.router.env.at("SGLANG_ROUTER_LOG_LEVEL"), "info");
  EXPECT_EQ(s.env.at("SGLANG_ROUTER_LOG_LEVEL"), "info");
  EXPECT_TRUE(s.command.auxiliary.empty());
  EXPECT_EQ(PointAt("tinyx-fp8-b200-sglang", 16, true).session_id,
            PointAt("tinyx-fp8-b200-sglang", 8, true).session_id);
  const recipe::ServeSpec& tp = PointAt("tinyx-fp8-b200-sglang", 4).serve;
  EXPECT_TRUE(tp.command.router.argv.empty());
  EXPECT_EQ(tp.command.port, 8888);
  // The client still targets PORT: the router's.
  EXPECT_EQ(PointAt("tinyx-fp8-b200-sglang", 8, true).load.concurrency, 8);
  EXPECT_TRUE(Key("tinyx-fp8-b200-sglang").failures.empty());
  // The dry run names the router and starts it after the engine.
  engine::RenderOptions options;
  options.work_dir = "/tmp/x";
  auto command = engine::RenderServerCommand(s, options);
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  std::string shown = engine::FormatSessionForDisplay("b200 dpa", *command);
  EXPECT_THAT(shown, HasSubstr("# router sglang_router.launch_router on 127.0.0.1:8888"));
  EXPECT_THAT(shown, HasSubstr("--mem-fraction-static 0.85 &\nuntil curl -sf "
                               "http://127.0.0.1:8889/health >/dev/null; do sleep 5; done\n"));
}

TEST(CaptureFixtureTest, TheServerCommandIsExactlyWhatTheScriptRan) {
  const recipe::ServeSpec& s = PointAt("tinyx-fp8-mi355x-vllm-mtp", 4).serve;
  EXPECT_EQ(
      s.command.argv,
      (std::vector<std::string>{
          "vllm",
          "serve",
          "tiny-org/TinyX-FP8",
          "--port",
          "8888",
          "--tensor-parallel-size",
          "8",
          "--block-size",
          "128",
          "--max-model-len",
          "2304",
          "--max-num-seqs",
          "8",
          "--kv-cache-dtype",
          "fp8",
          "--speculative-config",
          R"({"method": "eagle3", "model": "tiny-org/TinyX-EAGLE3", "num_speculative_tokens": 3})",
          "--tool-call-parser",
          "minimax_m3",
          "--reasoning-parser",
          "minimax_m3",
          "--enable-auto-tool-choice"}));
  EXPECT_EQ(s.command.port, 8888);
  EXPECT_EQ(s.command.source,
            "inferencex:benchmarks/single_node/fixed_seq_len/tinyx_fp8_mi355x_mtp.sh");
  EXPECT_EQ(s.env, (std::map<std::string, std::string>{{"GPU_METRICS_CSV", "gpu_metrics.csv"},
                                                       {"VLLM_ENGINE_READY_TIMEOUT_S", "3600"},
                                                       {"VLLM_ROCM_USE_AITER", "1"}}));
  EXPECT_EQ(s.env_from.at("HIP_VISIBLE_DEVICES"), "ROCR_VISIBLE_DEVICES");
  EXPECT_EQ(s.prepare,
            (std::vector<std::vector<std::string>>{{"hf", "download", "tiny-org/TinyX-FP8"},
                                                   {"hf", "download", "tiny-org/TinyX-EAGLE3"}}));
  // Read off the command: EAGLE3 with its draft, real acceptance.
  EXPECT_EQ(s.spec.method, recipe::SpecMethod::kEagle3);
  EXPECT_EQ(s.spec.draft_model, "tiny-org/TinyX-EAGLE3");
  EXPECT_EQ(s.spec.num_speculative_tokens, 3);
  EXPECT_EQ(s.spec.acceptance, recipe::AcceptanceMode::kReal);
  const recipe::ServeSpec& dpa = PointAt("tinyx-fp8-mi355x-vllm-mtp", 16, true).serve;
  EXPECT_THAT(
      engine::JoinForShell(dpa.command.argv),
      HasSubstr("--tensor-parallel-size 1 --data-parallel-size 8 --enable-expert-parallel"));
  EXPECT_EQ(dpa.env.at("VLLM_ROCM_USE_AITER"), "0");
  std::string notes;
  for (const auto& n : Key("tinyx-fp8-mi355x-vllm-mtp").notes) notes += n + "\n";
  EXPECT_THAT(notes, HasSubstr("not carried: pip install"));
  EXPECT_THAT(notes, HasSubstr("GPU tools the stand-ins answered: rocm-smi"));
  EXPECT_THAT(notes, HasSubstr("client --trust-remote-code is not carried"));
}

TEST(CaptureFixtureTest, TheClientsLoadIsCarriedWithTheChatTemplateAsServebenchsChatPath) {
  const recipe::LoadSpec& l = PointAt("tinyx-fp8-mi355x-vllm-mtp", 4).load;
  EXPECT_EQ(l.backend, "openai-chat");
  EXPECT_EQ(l.endpoint, "/v1/chat/completions");
  EXPECT_EQ(l.num_prompts, 40);
  EXPECT_EQ(l.warmups_per_concurrency, 2);
  EXPECT_DOUBLE_EQ(l.random_range_ratio, 0.8);
  EXPECT_TRUE(l.ignore_eos);
  EXPECT_EQ(l.isl, 1024);
  const recipe::LoadSpec& trt = PointAt("tinyx-fp4-b200-trt", 8).load;
  EXPECT_EQ(trt.endpoint, "/v1/completions");
}

TEST(CaptureFixtureTest, ACommandThatChangesWithConcSplitsItsSession) {
  const auto& mi355x = Key("tinyx-fp8-mi355x-vllm-mtp");
  ASSERT_EQ(mi355x.splits.size(), 1u);
  EXPECT_EQ(mi355x.splits[0],
            "tp8 1024x1024: --max-num-seqs changes with CONC, so 3 serve sessions (one per "
            "command) where the matrix has 1");
  const auto& trt = Key("tinyx-fp4-b200-trt");
  ASSERT_EQ(trt.splits.size(), 1u);
  EXPECT_THAT(trt.splits[0], HasSubstr("file tinyx-fp4.yml changes with CONC"));
  EXPECT_TRUE(Key("tinyx-fp8-h200-sglang").splits.empty());
  EXPECT_TRUE(Key("tinyx-fp8-h200-vllm-agentic-mtp").splits.empty());
  std::set<std::string> sglang_sessions;
  for (const auto& p : Fixture().plan.points)
    if (p.recipe == "tinyx-fp8-h200-sglang") sglang_sessions.insert(p.session_id);
  EXPECT_EQ(sglang_sessions.size(), 1u);
}

TEST(CaptureFixtureTest, LaunchersFilesAndSecretsAreHandled) {
  const recipe::ServeSpec& trt = PointAt("tinyx-fp4-b200-trt", 4).serve;
  ASSERT_GE(trt.command.argv.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(trt.command.argv.begin(), trt.command.argv.begin() + 6),
            (std::vector<std::string>{"mpirun", "-n", "1", "--oversubscribe", "--allow-run-as-root",
                                      "trtllm-serve"}));
  EXPECT_EQ(trt.command.argv.back(), "--extra_llm_api_options=tinyx-fp4.yml");
  ASSERT_EQ(trt.command.files.size(), 1u);
  EXPECT_EQ(trt.command.files[0].path, "tinyx-fp4.yml");
  EXPECT_THAT(trt.command.files[0].contents, HasSubstr("max_batch_size: 4\n"));
  EXPECT_EQ(trt.env.at("TRTLLM_ENABLE_PDL"), "1");
  const recipe::ServeSpec& sglang = PointAt("tinyx-fp8-h200-sglang", 2).serve;
  EXPECT_EQ(sglang.env_from.at("HUGGING_FACE_HUB_TOKEN"), "HF_TOKEN");
  EXPECT_EQ(sglang.env.count("HUGGING_FACE_HUB_TOKEN"), 0u);
  ASSERT_EQ(sglang.command.files.size(), 1u);
  EXPECT_EQ(sglang.command.files[0].path,
            "benchmarks/single_node/fixed_seq_len/../chat_templates/tinyx.jinja");
  EXPECT_THAT(sglang.command.files[0].contents, HasSubstr("<|assistant|>"));
  std::string notes;
  for (const auto& n : Key("tinyx-fp8-h200-sglang").notes) notes += n + "\n";
  EXPECT_THAT(notes, HasSubstr("the script patched the container image, not carried (servebench "
                               "runs the image as it is): sed -i ... "
                               "/sgl-workspace/sglang/python/sglang/srt/metrics.py"));
  // No placeholder token, nor the capture's own folders, anywhere in any point.
  for (const auto& p : Fixture().plan.points) {
    std::string json = recipe::PointToJson(p);
    EXPECT_EQ(json.find("servebench-capture-placeholder"), std::string::npos) << p.recipe;
    EXPECT_EQ(json.find("servebench-capture-"), std::string::npos) << p.recipe;
    EXPECT_EQ(json.find("<capture sandbox>"), std::string::npos) << p.recipe;
  }
  const recipe::ServeSpec& agentic = PointAt("tinyx-fp8-h200-vllm-agentic-mtp", 2).serve;
  EXPECT_EQ(agentic.spec.method, recipe::SpecMethod::kMtp);
  EXPECT_EQ(agentic.spec.acceptance, recipe::AcceptanceMode::kSyntheticTarget);
  EXPECT_DOUBLE_EQ(agentic.spec.synthetic_acceptance_length, 2.5);
  EXPECT_EQ(agentic.prepare.size(), 1u);  // the model; the traces dataset is the client's
  // Its chat template is named by an absolute /workspace path: that is its folder.
  EXPECT_EQ(agentic.command.folder, "/workspace");
  ASSERT_EQ(agentic.command.files.size(), 1u);
  EXPECT_EQ(agentic.command.files[0].path,
            "benchmarks/single_node/agentic/../chat_templates/tinyx.jinja");
  EXPECT_THAT(engine::JoinForShell(agentic.command.argv),
              HasSubstr("--chat-template /workspace/benchmarks/single_node/agentic/../"
                        "chat_templates/tinyx.jinja"));
}

// A script that serves the model's snapshot folder from the HF cache, resolved after
// its download (InferenceX's MiniMax-M3 H200 script): the folder's name is the hub's
// revision on the day, so the capture carries it as a value taken at launch, in the
// argv and in the variable the script exported, and the download as a prepare step.
TEST(CaptureFixtureTest, ASnapshotFolderServedFromTheHfCacheIsTakenAtLaunch) {
  const recipe::ServeSpec& s = PointAt("tinyx-bf16-h100-vllm", 4).serve;
  const std::string word = recipe::HubSnapshotWord("tiny-org/TinyX");
  EXPECT_EQ(s.command.argv,
            (std::vector<std::string>{"vllm", "serve", word, "--served-model-name",
                                      "tiny-org/TinyX", "--host", "0.0.0.0", "--port", "8888",
                                      "--tensor-parallel-size", "8"}));
  EXPECT_EQ(s.env.at("MODEL_PATH"), word);
  EXPECT_EQ(s.prepare,
            (std::vector<std::vector<std::string>>{{"hf", "download", "tiny-org/TinyX"}}));
  // The native recipe says it as {hf_snapshot: REPO}, in argv and env_from.
  auto written = WriteNativeRecipes(Fixture().plan.points, "captured from the fixture");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_THAT(written->yaml,
              HasSubstr("argv: [\"vllm\", \"serve\", {hf_snapshot: \"tiny-org/TinyX\"}"));
  EXPECT_THAT(written->yaml, HasSubstr("\"MODEL_PATH\": {hf_snapshot: \"tiny-org/TinyX\"}"));
  EXPECT_EQ(written->yaml.find(kStandinHubRevision), std::string::npos);
}

// The dry run of every captured serve session, executed as shell text with recorders
// for the programs it names, starts exactly the captured argv and environment. A
// command whose folder is /workspace runs in a container with its folder mounted
// there: then the container's command is checked.
TEST(CaptureFixtureTest, TheDryRunOfEveryCapturedSessionStartsExactlyTheCapture) {
  int sessions = 0, in_container = 0;
  for (const auto& session : recipe::GroupSessions(Fixture().plan.points)) {
    const recipe::Point& p = session.points.front();
    if (p.serve.command.argv.empty()) continue;
    testing::TempFolder dir("capture-replay");
    engine::RenderOptions options;
    options.work_dir = dir.path() + "/engine-config";
    if (!p.serve.command.folder.empty())
      options.container.kind = engine::ContainerProfile::Kind::kDocker;
    options.lookup_env = [](const std::string& name) -> std::optional<std::string> {
      if (name == "ROCR_VISIBLE_DEVICES") return std::string("0,1,2,3,4,5,6,7");
      if (name == "HF_TOKEN") return std::string("a-real-token-at-launch");
      return std::nullopt;
    };
    // As run --dry-run renders it: with env values a secret would be redacted in.
    auto command = engine::RenderServerCommand(recipe::WithSecretsRedacted(p).serve, options);
    ASSERT_TRUE(command.ok()) << command.status().ToString();
    const std::map<std::string, std::string> launch = {{"ROCR_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"},
                                                       {"HF_TOKEN", "a-real-token-at-launch"},
                                                       {"HF_HUB_CACHE", dir.path() + "/hub"}};
    // What the dry run starts: the captured command, its snapshot folders resolved.
    const recipe::ServeSpec serve = testing::WithReplayHubCache(p.serve, dir.path() + "/hub");
    std::string shown = engine::FormatCommandForDisplay(*command);
    EXPECT_EQ(shown.find("a-real-token-at-launch"), std::string::npos) << "no secret is shown";
    std::vector<CallRecord> calls = testing::ReplayDryRun(shown, dir.path(), launch);
    const size_t router_calls = p.serve.command.router.argv.empty() ? 0 : 2;  // curl, router
    ASSERT_EQ(calls.size(),
              p.serve.prepare.size() + p.serve.command.auxiliary.size() + 1 + router_calls)
        << p.recipe << "\n"
        << shown;
    EXPECT_EQ(testing::TakeRouterCall(serve, &calls), "") << p.recipe << "\n" << shown;
    for (size_t i = 0; i < p.serve.prepare.size(); ++i) {
      std::vector<std::string> step = {calls[i].tool};
      step.insert(step.end(), calls[i].argv.begin(), calls[i].argv.end());
      EXPECT_EQ(step, p.serve.prepare[i]);
    }
    std::vector<CallRecord> started(calls.begin() + p.serve.prepare.size(), calls.end());
    std::string missing = testing::TakeAuxiliaryCalls(serve, &started);
    EXPECT_EQ(missing, "") << p.recipe << "\n" << shown;
    ASSERT_EQ(started.size(), 1u) << p.recipe;
    const CallRecord& server = started.front();
    std::vector<std::string> argv = {server.tool};
    argv.insert(argv.end(), server.argv.begin(), server.argv.end());
    std::map<std::string, std::string> expected = serve.env;
    if (p.serve.env_from.count("HIP_VISIBLE_DEVICES"))
      expected["HIP_VISIBLE_DEVICES"] = "0,1,2,3,4,5,6,7";
    if (p.serve.env_from.count("HUGGING_FACE_HUB_TOKEN"))
      expected["HUGGING_FACE_HUB_TOKEN"] = "a-real-token-at-launch";
    if (p.serve.command.folder.empty()) {
      EXPECT_EQ(argv, serve.command.argv) << p.recipe;
      std::map<std::string, std::string> env = server.env;
      for (const char* shell : {"PATH", "RECORD_DIR", "PWD", "OLDPWD", "SHLVL", "_"})
        env.erase(shell);
      for (const auto& [name, value] : launch) env.erase(name);
      EXPECT_EQ(env, expected) << p.recipe;
      EXPECT_EQ(server.cwd, options.work_dir);
    } else {
      // docker run ... -v WORK:/workspace ... -e K=V ... -w /workspace --entrypoint ARGV0
      // IMAGE ARGV...: the captured command, in its folder, with its environment.
      ++in_container;
      std::string line = engine::JoinForShell(argv);
      EXPECT_THAT(line, HasSubstr("-v " + options.work_dir + ":/workspace"));
      EXPECT_THAT(line, HasSubstr("-w /workspace --entrypoint " + serve.command.argv[0] + " " +
                                  engine::ShellQuote(p.serve.image) + " " +
                                  engine::JoinForShell(std::vector<std::string>(
                                      serve.command.argv.begin() + 1, serve.command.argv.end()))));
      for (const auto& [k, v] : expected) EXPECT_THAT(line, HasSubstr("-e " + k + "=" + v));
    }
    for (const auto& f : p.serve.command.files) {
      auto written = ReadFile(options.work_dir + "/" + f.path);
      ASSERT_TRUE(written.ok()) << f.path;
      EXPECT_EQ(*written, f.contents);
    }
    ++sessions;
  }
  // mi355x tp8 ×3 + dpa, trt ×2, sglang, the agentic h200 (none, lmcache) and b200,
  // the b200 sglang tp4 and its DP-attention session behind a router, the h100 bf16
  // served from its HF snapshot
  EXPECT_EQ(sessions, 4 + 2 + 1 + 2 + 1 + 2 + 1);
  EXPECT_EQ(in_container, 3);  // the agentic commands name /workspace
}

TEST(CaptureFixtureTest, TheNativeRecipeWrittenFromTheCaptureGivesTheSamePoints) {
  auto written = WriteNativeRecipes(Fixture().plan.points, "captured from the fixture");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->recipes, 7);
  EXPECT_TRUE(written->skipped.empty()) << written->skipped.front();
  recipe::Diagnostics d;
  recipe::RecipeSet set = recipe::LoadRecipeText(written->yaml, "captured.yaml", &d);
  ASSERT_TRUE(d.ok()) << d.ToString() << written->yaml;
  auto plan = recipe::ExpandRecipes(set, recipe::MatrixFilters{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto identity = [](const recipe::Point& p) {
    boost::json::object o = boost::json::parse(recipe::PointToJson(p)).as_object();
    return boost::json::serialize(o["serve"]) + boost::json::serialize(o["load"]) + p.exp_name +
           p.runner + p.model_prefix + p.recipe;
  };
  std::multiset<std::string> from_capture, from_native;
  for (const auto& p : Fixture().plan.points)
    if (!p.serve.command.argv.empty()) from_capture.insert(identity(p));
  for (const auto& p : plan->points) from_native.insert(identity(p));
  // fixed-seq-len (the b200 sglang's 3 and the h100 bf16's 1 among them), agentic h200
  // and b200
  EXPECT_EQ(from_capture.size(), 14u + 3 + 1);
  EXPECT_EQ(from_native, from_capture);
  EXPECT_THAT(written->yaml, HasSubstr("# captured from the fixture\nservebench: 1\n"));
  // The agentic keys as agentic-coding scenarios, the offload tier and its server kept.
  EXPECT_THAT(written->yaml,
              HasSubstr("      - scenario: agentic-coding\n        duration_s: 3600\n"));
  EXPECT_THAT(written->yaml, HasSubstr("            kv_offloading: \"dram\"\n"
                                       "            kv_offload_backend: \"mooncake\"\n"));
  EXPECT_THAT(written->yaml, HasSubstr("                - argv: [\"mooncake_master\", "));
  EXPECT_THAT(written->yaml, HasSubstr("              router:\n                argv: [\"python3\", "
                                       "\"-m\", \"sglang_router.launch_router\", "));
}

// Captured env values are the scripts' configuration (secrets became env_from), so the
// written recipe lists their names in env_not_secret and they reload as shown.
TEST(CaptureFixtureTest, TheWrittenRecipeShowsTheCapturedEnvironment) {
  auto written = WriteNativeRecipes(Fixture().plan.points, "captured");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_THAT(written->yaml,
              HasSubstr("env_not_secret: [\"GPU_METRICS_CSV\", \"VLLM_ENGINE_READY_TIMEOUT_S\", "
                        "\"VLLM_ROCM_USE_AITER\"]\n"));
  recipe::Diagnostics d;
  recipe::RecipeSet set = recipe::LoadRecipeText(written->yaml, "captured.yaml", &d);
  ASSERT_TRUE(d.ok()) << d.ToString();
  auto plan = recipe::ExpandRecipes(set, recipe::MatrixFilters{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  int with_env = 0;
  for (const auto& p : plan->points) {
    if (p.serve.env.empty()) continue;
    ++with_env;
    for (const auto& [name, value] : recipe::WithSecretsRedacted(p).serve.env)
      EXPECT_EQ(value, p.serve.env.at(name)) << p.recipe << " " << name;
  }
  EXPECT_GT(with_env, 0);
  for (const auto& p : Fixture().plan.points)
    for (const auto& [name, value] : recipe::WithSecretsRedacted(p).serve.env)
      EXPECT_EQ(value, p.serve.env.at(name)) << "--inferencex-root shows " << name;
}

// Points of one ISL/OSL whose clients offer different load go into scenarios of their
// own; a key the native format cannot say is listed with the reason and the others
// are still written.
TEST(CaptureFixtureTest, LoadThatDiffersWithinAScenarioSplitsItAndAnUnwritableKeyIsListed) {
  std::vector<recipe::Point> points = Fixture().plan.points;
  const std::string split_key = "tinyx-fp8-mi355x-vllm-mtp", bad_key = "tinyx-fp4-b200-trt";
  recipe::Point* first = nullptr;
  for (auto& p : points) {
    if (p.recipe == split_key && first == nullptr) {
      first = &p;
      p.load.warmups_per_concurrency = 0;
      p.load.num_warmups = 7;
    }
    if (p.recipe == bad_key) p.serve.max_model_len = 12345;
  }
  ASSERT_NE(first, nullptr);
  auto written = WriteNativeRecipes(points, "captured");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->recipes, 6);
  ASSERT_EQ(written->skipped.size(), 1u);
  EXPECT_THAT(written->skipped[0], HasSubstr(bad_key + " "));
  EXPECT_THAT(written->skipped[0], HasSubstr("max-model-len 12345 is not isl + osl + 256"));
  recipe::Diagnostics d;
  recipe::RecipeSet set = recipe::LoadRecipeText(written->yaml, "captured.yaml", &d);
  ASSERT_TRUE(d.ok()) << d.ToString() << written->yaml;
  auto plan = recipe::ExpandRecipes(set, recipe::MatrixFilters{});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto identity = [](const recipe::Point& p) {
    boost::json::object o = boost::json::parse(recipe::PointToJson(p)).as_object();
    return boost::json::serialize(o["serve"]) + boost::json::serialize(o["load"]) + p.recipe;
  };
  std::multiset<std::string> from_capture, from_native;
  for (const auto& p : points)
    if (!p.serve.command.argv.empty() && p.recipe != bad_key) from_capture.insert(identity(p));
  for (const auto& p : plan->points) from_native.insert(identity(p));
  EXPECT_EQ(from_native, from_capture);
  EXPECT_THAT(written->yaml, HasSubstr("num_warmups: 7"));
}

// The stand-in server records itself in the background while the script goes on to
// its readiness probe and client; the probe answers only once the server has
// recorded itself, so every captured server is followed by its client (no point
// is left with the master config's default load).
TEST(CaptureFixtureTest, EveryCapturedServerIsFollowedByItsClient) {
  for (const auto& k : Fixture().report.keys)
    for (const auto& note : k.notes)
      EXPECT_THAT(note, ::testing::Not(HasSubstr("no benchmark client"))) << k.key;
  int fixed = 0;
  for (const auto& p : Fixture().plan.points) {
    if (p.serve.command.argv.empty() || p.load.scenario == "agentic-coding") continue;
    ++fixed;
    EXPECT_FALSE(p.load.backend.empty()) << p.recipe << " at " << p.load.concurrency;
    EXPECT_DOUBLE_EQ(p.load.random_range_ratio, 0.8) << p.recipe << " at " << p.load.concurrency;
  }
  EXPECT_EQ(fixed, 14);
}

}  // namespace
}  // namespace servebench::capture
