// Verbatim commands (serve.command) render as written, in their own folder and on
// their own port; env_from and prepare steps work for every rendering and are shown
// by the dry run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/adapter.h"
#include "engine/command_display.h"

namespace servebench::engine {
namespace {

using ::testing::HasSubstr;

const EngineCatalog& Catalog() {
  static const EngineCatalog* catalog = [] {
    auto loaded = LoadEngineCatalog(std::string(SERVEBENCH_SOURCE_DIR) + "/data/engine");
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return new EngineCatalog(std::move(loaded).value());
  }();
  return *catalog;
}

recipe::ServeSpec Captured() {
  recipe::ServeSpec spec;
  spec.engine = "trtllm";
  spec.model = "org/m";
  spec.tp = 8;
  spec.command.argv = {"mpirun",          "-n",           "1",
                       "--oversubscribe", "trtllm-serve", "org/m",
                       "--port=8888",     "--tp_size=8",  "--extra_llm_api_options=dsr1.yml"};
  spec.command.port = 8888;
  spec.command.files = {{"dsr1.yml", "cuda_graph_config:\n  max_batch_size: 4\n"}};
  spec.command.source = "inferencex:benchmarks/single_node/fixed_seq_len/m_fp4_b200_trt.sh";
  spec.env = {{"TRTLLM_ENABLE_PDL", "1"}};
  return spec;
}

RenderOptions Options() {
  RenderOptions options;
  options.port = 41234;  // the run's free port: a verbatim command keeps its own
  options.work_dir = "/out/engine-config";
  options.lookup_env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "ROCR_VISIBLE_DEVICES") return std::string("4,5,6,7");
    return std::nullopt;
  };
  return options;
}

TEST(VerbatimAdapterTest, RunsTheCommandAsWrittenInItsFolderOnItsPort) {
  auto command = RenderServerCommand(Captured(), Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  EXPECT_EQ(command->argv, Captured().command.argv);
  EXPECT_EQ(command->port, 8888);
  EXPECT_EQ(command->host, "127.0.0.1");
  EXPECT_EQ(command->env, Captured().env);
  EXPECT_EQ(command->working_dir, "/out/engine-config");
  ASSERT_EQ(command->files.size(), 1u);
  EXPECT_EQ(command->files[0].path, "/out/engine-config/dsr1.yml");
  EXPECT_EQ(command->readiness_timeout_s, 1800);  // trtllm's table default
  std::string shown = FormatCommandForDisplay(*command);
  EXPECT_THAT(shown, HasSubstr("mkdir -p /out/engine-config && cd /out/engine-config\n"
                               "cat > /out/engine-config/dsr1.yml <<'EOF'"));
  EXPECT_THAT(shown, HasSubstr("TRTLLM_ENABLE_PDL=1 \\\nmpirun \\\n    -n 1 \\\n    "
                               "--oversubscribe trtllm-serve org/m \\\n    --port=8888"));
}

TEST(VerbatimAdapterTest, AnEngineWithoutAnAdapterMayStillRunAVerbatimCommand) {
  recipe::ServeSpec spec = Captured();
  spec.engine = "atom";
  spec.readiness_timeout_s = 600;
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  EXPECT_EQ(command->readiness_timeout_s, 600);
  spec.command = {};
  auto rendered = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_FALSE(rendered.ok());
  EXPECT_THAT(rendered.status().message(), HasSubstr("serve.engine = \"atom\": unknown engine"));
}

TEST(VerbatimAdapterTest, NothingIsAppendedToAVerbatimCommand) {
  recipe::ServeSpec spec = Captured();
  spec.extra_args = {"--enforce-eager"};
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_FALSE(command.ok());
  EXPECT_THAT(
      command.status().message(),
      HasSubstr("serve.extra_args[0] = \"--enforce-eager\": serve.command runs as written"));
  spec = Captured();
  spec.command.port = 0;
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.command.port = 0"));
  spec = Captured();
  spec.command.files[0].path = "../../etc/passwd";
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.command.files[0].path = \"../../etc/passwd\""));
}

TEST(VerbatimAdapterTest, EnvFromTakesTheLaunchingMachinesValueAndTheDryRunSaysSo) {
  recipe::ServeSpec spec = Captured();
  spec.env_from = {{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"},
                   {"CUDA_VISIBLE_DEVICES", "SLURM_GPUS"}};
  spec.prepare = {{"hf", "download", "org/m"}, {"hf", "download", "org/draft"}};
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  EXPECT_EQ(command->env.at("HIP_VISIBLE_DEVICES"), "4,5,6,7");
  EXPECT_EQ(command->env.count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ(command->prepare, spec.prepare);
  std::string shown = FormatCommandForDisplay(*command);
  EXPECT_THAT(shown, HasSubstr("# before the engine starts:\nhf download org/m\n"
                               "hf download org/draft\n"));
  EXPECT_THAT(shown, HasSubstr("# HIP_VISIBLE_DEVICES is $ROCR_VISIBLE_DEVICES when that is set "
                               "at launch (ROCR_VISIBLE_DEVICES is set here)"));
  EXPECT_THAT(shown, HasSubstr("HIP_VISIBLE_DEVICES=\"$ROCR_VISIBLE_DEVICES\" \\\n"));
  EXPECT_EQ(shown.find("4,5,6,7"), std::string::npos) << "the value itself is never shown";
  EXPECT_THAT(shown, HasSubstr("# CUDA_VISIBLE_DEVICES is $SLURM_GPUS when that is set at launch "
                               "(SLURM_GPUS is unset here, so CUDA_VISIBLE_DEVICES is not set)"));
  spec.env["HIP_VISIBLE_DEVICES"] = "0";
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.env.HIP_VISIBLE_DEVICES and serve.env_from.HIP_VISIBLE_DEVICES"));
}

TEST(VerbatimAdapterTest, EnvFromAndPrepareApplyToRenderedCommandsToo) {
  recipe::ServeSpec spec;
  spec.engine = "vllm";
  spec.model = "org/m";
  spec.env_from = {{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}};
  spec.prepare = {{"hf", "download", "org/draft"}};
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  EXPECT_EQ(command->env.at("HIP_VISIBLE_DEVICES"), "4,5,6,7");
  EXPECT_EQ(command->prepare.size(), 1u);
  EXPECT_TRUE(command->working_dir.empty());
}

TEST(VerbatimAdapterTest, ContainersRunTheCommandInItsFolder) {
  recipe::ServeSpec spec = Captured();
  spec.image = "nvcr.io/nvidia/tensorrt-llm:1.1";
  spec.env_from = {{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}};
  RenderOptions options = Options();
  options.container.kind = ContainerProfile::Kind::kDocker;
  auto docker = RenderServerCommand(spec, options, Catalog());
  ASSERT_TRUE(docker.ok()) << docker.status().ToString();
  std::string line = JoinForShell(docker->argv);
  EXPECT_THAT(line, HasSubstr("-v /out/engine-config:/out/engine-config"));
  EXPECT_THAT(line, HasSubstr("-w /out/engine-config --entrypoint mpirun"));
  EXPECT_EQ(line.find("-v /out/engine-config:/out/engine-config -v"), std::string::npos) << line;
  // A value taken from the launching machine is passed by name, never in argv.
  EXPECT_THAT(line, HasSubstr("-e HIP_VISIBLE_DEVICES -e TRTLLM_ENABLE_PDL=1"));
  EXPECT_EQ(line.find("4,5,6,7"), std::string::npos) << line;
  EXPECT_EQ(docker->env, (std::map<std::string, std::string>{{"HIP_VISIBLE_DEVICES", "4,5,6,7"}}));
  options.container.kind = ContainerProfile::Kind::kSrun;
  auto srun = RenderServerCommand(spec, options, Catalog());
  ASSERT_TRUE(srun.ok());
  EXPECT_THAT(JoinForShell(srun->argv), HasSubstr("--container-workdir=/out/engine-config"));
  options.container.kind = ContainerProfile::Kind::kEnroot;
  EXPECT_THAT(RenderServerCommand(spec, options, Catalog()).status().message(),
              HasSubstr("enroot cannot set the container's folder"));
}

TEST(VerbatimAdapterTest, ACommandWithItsOwnFolderRunsInAContainerWithTheWorkDirMountedThere) {
  recipe::ServeSpec spec = Captured();
  spec.image = "nvcr.io/nvidia/tensorrt-llm:1.1";
  spec.command.folder = "/workspace";
  auto host = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_FALSE(host.ok());
  EXPECT_THAT(host.status().message(),
              HasSubstr("serve.command.folder = \"/workspace\": the command names its files "
                        "under /workspace"));
  RenderOptions options = Options();
  options.container.kind = ContainerProfile::Kind::kDocker;
  auto docker = RenderServerCommand(spec, options, Catalog());
  ASSERT_TRUE(docker.ok()) << docker.status().ToString();
  std::string line = JoinForShell(docker->argv);
  EXPECT_THAT(line, HasSubstr("-v /out/engine-config:/workspace"));
  EXPECT_THAT(line, HasSubstr("-w /workspace --entrypoint mpirun"));
  EXPECT_EQ(docker->files[0].path, "/out/engine-config/dsr1.yml");
  options.container.kind = ContainerProfile::Kind::kSrun;
  auto srun = RenderServerCommand(spec, options, Catalog());
  ASSERT_TRUE(srun.ok());
  EXPECT_THAT(JoinForShell(srun->argv), HasSubstr("--container-workdir=/workspace"));
  EXPECT_THAT(JoinForShell(srun->argv),
              HasSubstr("--container-mounts=/out/engine-config:/workspace"));
}

// Auxiliary servers (serve.command.auxiliary) render as whole commands of their own:
// same folder and files, their own environment, a container of their own named after
// the engine's; the dry run starts them in the background before the engine.
TEST(VerbatimAdapterTest, AuxiliaryServersStartBeforeTheEngineInItsFolder) {
  recipe::ServeSpec spec = Captured();
  spec.command.auxiliary = {
      {{"mooncake_master", "--port", "20888"}, {{"MC_SLICE_SIZE", "1048576"}}, {}}};
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  ASSERT_EQ(command->auxiliary.size(), 1u);
  const ServerCommand& aux = command->auxiliary[0];
  EXPECT_EQ(aux.engine, "mooncake_master");
  EXPECT_EQ(aux.argv, spec.command.auxiliary[0].argv);
  EXPECT_EQ(aux.env, spec.command.auxiliary[0].env);
  EXPECT_EQ(aux.working_dir, "/out/engine-config");
  ASSERT_EQ(aux.files.size(), 1u);  // the config it may read is written before it starts
  EXPECT_EQ(aux.files[0].path, "/out/engine-config/dsr1.yml");
  std::string shown = FormatCommandForDisplay(*command);
  EXPECT_THAT(shown, HasSubstr("EOF\n# auxiliary server mooncake_master, started before the "
                               "engine, stopped after it:\nMC_SLICE_SIZE=1048576 \\\n"
                               "mooncake_master \\\n    --port 20888 &\nTRTLLM_ENABLE_PDL=1"));

  spec.image = "nvcr.io/nvidia/tensorrt-llm:1.1";
  RenderOptions options = Options();
  options.container.kind = ContainerProfile::Kind::kDocker;
  auto docker = RenderServerCommand(spec, options, Catalog());
  ASSERT_TRUE(docker.ok()) << docker.status().ToString();
  ASSERT_EQ(docker->auxiliary.size(), 1u);
  std::string line = JoinForShell(docker->auxiliary[0].argv);
  EXPECT_THAT(line, HasSubstr("--name servebench-engine-8888-aux0 --network host"));
  EXPECT_THAT(line, HasSubstr("-e MC_SLICE_SIZE=1048576 -w /out/engine-config --entrypoint "
                              "mooncake_master nvcr.io/nvidia/tensorrt-llm:1.1 --port 20888"));
  EXPECT_EQ(JoinForShell(docker->auxiliary[0].cleanup_argv),
            "docker rm -f servebench-engine-8888-aux0");

  spec.command.auxiliary = {{{}, {}, {}}};
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.command.auxiliary[0].argv is empty"));
}

// A router in front (serve.command.router) renders as a command of its own on its
// port, where the load goes (LoadTarget); the dry run starts the engine in the
// background, waits for its /health, then starts the router; in a container it gets
// a container of its own, named after the engine's.
TEST(VerbatimAdapterTest, ARouterInFrontStartsOnceTheEngineAnswersAndTakesTheLoad) {
  recipe::ServeSpec spec = Captured();
  spec.command.router = {{"python3", "-m", "sglang_router.launch_router", "--worker-urls",
                          "http://localhost:8888", "--port", "8880"},
                         {{"RUST_LOG", "info"}},
                         8880,
                         {}};
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  ASSERT_EQ(command->router.size(), 1u);
  const ServerCommand& router = command->router[0];
  EXPECT_EQ(router.engine, "sglang_router.launch_router");
  EXPECT_EQ(router.argv, spec.command.router.argv);
  EXPECT_EQ(router.env, spec.command.router.env);
  EXPECT_EQ(router.working_dir, "/out/engine-config");
  EXPECT_EQ(BaseUrl(LoadTarget(*command)), "http://127.0.0.1:8880");
  EXPECT_EQ(command->port, 8888);
  std::string shown = FormatCommandForDisplay(*command);
  EXPECT_THAT(shown,
              HasSubstr("--extra_llm_api_options=dsr1.yml &\nuntil curl -sf "
                        "http://127.0.0.1:8888/health >/dev/null; do sleep 5; done\n# "
                        "router sglang_router.launch_router in front of the engine, on "
                        "port 8880: the load goes to it; stopped before the engine\n"
                        "RUST_LOG=info \\\npython3 \\\n    -m sglang_router.launch_router \\\n"
                        "    --worker-urls http://localhost:8888 \\\n    --port 8880\n"));

  spec.image = "nvcr.io/nvidia/tensorrt-llm:1.1";
  RenderOptions options = Options();
  options.container.kind = ContainerProfile::Kind::kDocker;
  auto docker = RenderServerCommand(spec, options, Catalog());
  ASSERT_TRUE(docker.ok()) << docker.status().ToString();
  ASSERT_EQ(docker->router.size(), 1u);
  EXPECT_THAT(JoinForShell(docker->router[0].argv),
              HasSubstr("--name servebench-engine-8888-router --network host"));

  spec.image.clear();
  spec.command.router.port = 8888;
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.command.router.port = 8888"));
}

// An auxiliary server's and the router's env_from are taken at launch, as the
// command's: a ROCm script's HIP_VISIBLE_DEVICES copy of ROCR_VISIBLE_DEVICES is this
// machine's list, shown as "$ROCR_VISIBLE_DEVICES", and passed into a container by
// name only.
TEST(VerbatimAdapterTest, AuxiliaryAndRouterDeviceListsAreTakenAtLaunch) {
  recipe::ServeSpec spec = Captured();
  spec.command.auxiliary = {{{"lmcache", "server", "--port", "5555"},
                             {},
                             {{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}}}};
  spec.command.router = {{"vllm-router", "--port", "8880"}, {}, 8880, {}};
  spec.command.router.env_from = {{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}};
  auto command = RenderServerCommand(spec, Options(), Catalog());
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  ASSERT_EQ(command->auxiliary.size(), 1u);
  ASSERT_EQ(command->router.size(), 1u);
  for (const ServerCommand* c : {&command->auxiliary[0], &command->router[0]}) {
    EXPECT_EQ(c->env.at("HIP_VISIBLE_DEVICES"), "4,5,6,7") << c->engine;
    EXPECT_EQ(c->env_from.at("HIP_VISIBLE_DEVICES"), "ROCR_VISIBLE_DEVICES") << c->engine;
  }
  EXPECT_EQ(command->env.count("HIP_VISIBLE_DEVICES"), 0u) << "the engine's own env is its own";
  EXPECT_THAT(FormatCommandForDisplay(*command),
              HasSubstr("HIP_VISIBLE_DEVICES=\"$ROCR_VISIBLE_DEVICES\" \\\nvllm-router"));

  spec.image = "rocm/vllm:latest";
  RenderOptions options = Options();
  options.container.kind = ContainerProfile::Kind::kDocker;
  auto docker = RenderServerCommand(spec, options, Catalog());
  ASSERT_TRUE(docker.ok()) << docker.status().ToString();
  const std::string router = JoinForShell(docker->router[0].argv);
  EXPECT_THAT(router, HasSubstr("-e HIP_VISIBLE_DEVICES "));
  EXPECT_THAT(router, ::testing::Not(HasSubstr("4,5,6,7")));

  spec.image.clear();
  spec.command.router.env = {{"HIP_VISIBLE_DEVICES", "0"}};
  EXPECT_THAT(RenderServerCommand(spec, Options(), Catalog()).status().message(),
              HasSubstr("serve.command.router.env.HIP_VISIBLE_DEVICES and "
                        "serve.command.router.env_from.HIP_VISIBLE_DEVICES are both set"));
}

}  // namespace
}  // namespace servebench::engine
