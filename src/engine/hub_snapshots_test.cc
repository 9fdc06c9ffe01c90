// Snapshot words (recipe/hub_snapshot.h) resolved at launch from the HF cache as
// huggingface_hub lays it out, in a container through the mount that holds the cache;
// the dry run resolves them the same way when pasted into bash.
#include "engine/hub_snapshots.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/atomic_file.h"
#include "engine/adapter.h"
#include "engine/command_display.h"
#include "recipe/hub_snapshot.h"

namespace servebench::engine {
namespace {

using ::testing::HasSubstr;

class HubSnapshotsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = (std::filesystem::temp_directory_path() /
             ("servebench-hub-snapshots-" + std::to_string(::getpid())))
                .string();
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // A download of `repo` at `revision` into the cache at `cache`, as `hf download` leaves it.
  std::string Download(const std::string& cache, const std::string& repo,
                       const std::string& revision) {
    const std::string model = cache + "/" + recipe::HubCacheFolderName(repo);
    std::filesystem::create_directories(model + "/refs");
    std::filesystem::create_directories(model + "/snapshots/" + revision);
    std::ofstream(model + "/refs/main") << revision;
    return model + "/snapshots/" + revision;
  }

  RenderOptions Launch(std::map<std::string, std::string> env) {
    RenderOptions options;
    options.work_dir = root_ + "/work";
    options.lookup_env = [env](const std::string& name) -> std::optional<std::string> {
      auto it = env.find(name);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    return options;
  }

  // A captured command serving the snapshot of org/m (vllm serve "$MODEL_PATH").
  static recipe::ServeSpec Served() {
    recipe::ServeSpec spec;
    spec.engine = "vllm";
    spec.model = "org/m";
    spec.image = "vllm/vllm-openai:v1";
    const std::string word = recipe::HubSnapshotWord("org/m");
    spec.command.argv = {"vllm", "serve", word, "--served-model-name", "org/m", "--port", "8888"};
    spec.command.port = 8888;
    spec.env = {{"MODEL_PATH", word}};
    spec.prepare = {{"hf", "download", "org/m"}};
    return spec;
  }

  std::string root_;
};

TEST_F(HubSnapshotsTest, TheCacheIsHuggingFaceHubsAndTheSnapshotIsTheOneRefsMainNames) {
  const std::string hub = Download(root_ + "/hub", "org/m", "abc123");
  EXPECT_EQ(*HubSnapshotFolder("org/m", Launch({{"HF_HUB_CACHE", root_ + "/hub"}})), hub);
  // HF_HUB_CACHE first, then HF_HOME/hub, then ~/.cache/huggingface/hub.
  const std::string home = Download(root_ + "/hfhome/hub", "org/m", "def456");
  EXPECT_EQ(*HubSnapshotFolder("org/m", Launch({{"HF_HOME", root_ + "/hfhome"}})), home);
  EXPECT_EQ(*HubSnapshotFolder("org/m", Launch({{"HF_HUB_CACHE", root_ + "/hub"},
                                                {"HF_HOME", root_ + "/hfhome"}})),
            hub);
  const std::string user = Download(root_ + "/user/.cache/huggingface/hub", "org/m", "0a1b");
  EXPECT_EQ(*HubSnapshotFolder("org/m", Launch({{"HOME", root_ + "/user"}})), user);
}

TEST_F(HubSnapshotsTest, AMissingDownloadIsAnErrorNamingWhatWasRead) {
  auto none = HubSnapshotFolder("org/m", Launch({{"HF_HUB_CACHE", root_ + "/hub"}}));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), HasSubstr(root_ + "/hub/models--org--m/refs/main"));
  EXPECT_THAT(none.status().message(), HasSubstr("did not download it"));
  // refs/main naming a revision whose folder is gone.
  std::filesystem::remove_all(Download(root_ + "/hub", "org/m", "abc123"));
  auto gone = HubSnapshotFolder("org/m", Launch({{"HF_HUB_CACHE", root_ + "/hub"}}));
  ASSERT_FALSE(gone.ok());
  EXPECT_THAT(gone.status().message(), HasSubstr("snapshot folder"));
}

TEST_F(HubSnapshotsTest, EveryWordOfTheCommandIsReplacedAtLaunch) {
  const std::string folder = Download(root_ + "/hub", "org/m", "abc123");
  RenderOptions options = Launch({{"HF_HUB_CACHE", root_ + "/hub"}});
  recipe::ServeSpec spec = Served();
  spec.image.clear();
  auto command = RenderServerCommand(spec, options);
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  ASSERT_TRUE(ResolveHubSnapshots(options, &*command).ok());
  EXPECT_EQ(command->argv[2], folder);
  EXPECT_EQ(command->env.at("MODEL_PATH"), folder);
  // A command without words is left as it is.
  ServerCommand plain;
  plain.argv = {"vllm", "serve", "org/m"};
  ASSERT_TRUE(ResolveHubSnapshots(options, &plain).ok());
  EXPECT_EQ(plain.argv[2], "org/m");
}

TEST_F(HubSnapshotsTest, InAContainerTheFolderIsNamedThroughTheMountHoldingTheCache) {
  const std::string folder = Download(root_ + "/hub", "org/m", "abc123");
  RenderOptions options = Launch({{"HF_HUB_CACHE", root_ + "/hub"}});
  options.container.kind = ContainerProfile::Kind::kDocker;
  options.container.mounts = {root_ + "/hub:/mnt/hf_hub_cache:ro"};
  auto command = RenderServerCommand(Served(), options);
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  ASSERT_TRUE(ResolveHubSnapshots(options, &*command).ok());
  const std::string inside = "/mnt/hf_hub_cache/models--org--m/snapshots/abc123";
  const std::string line = JoinForShell(command->argv);
  EXPECT_THAT(line, HasSubstr("-e MODEL_PATH=" + inside));
  EXPECT_THAT(line, HasSubstr("vllm/vllm-openai:v1 serve " + inside));
  EXPECT_EQ(line.find(recipe::HubSnapshotWord("org/m")), std::string::npos);
  // No mount holds the cache: the engine could not see the folder.
  options.container.mounts.clear();
  auto unmounted = RenderServerCommand(Served(), options);
  ASSERT_TRUE(unmounted.ok());
  Status refused = ResolveHubSnapshots(options, &*unmounted);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("no mount holds that folder"));
  EXPECT_THAT(refused.message(), HasSubstr(folder));
}

// The dry run, pasted into bash after the download, starts the command with the
// folder servebench would give it.
TEST_F(HubSnapshotsTest, TheDryRunResolvesTheSnapshotAsTheLaunchDoes) {
  const std::string folder = Download(root_ + "/hub", "org/m", "abc123");
  recipe::ServeSpec spec = Served();
  spec.image.clear();
  spec.prepare.clear();
  spec.command.argv = {"printf", "%s|%s\\n", recipe::HubSnapshotWord("org/m"), "--port", "8888"};
  auto command = RenderServerCommand(spec, Launch({}));
  ASSERT_TRUE(command.ok()) << command.status().ToString();
  const std::string shown = FormatCommandForDisplay(*command);
  EXPECT_THAT(shown, HasSubstr("# hf_snapshot_1: org/m's snapshot folder in the HF cache"));
  EXPECT_THAT(shown, HasSubstr("MODEL_PATH=\"$hf_snapshot_1\""));
  ASSERT_TRUE(WriteFileAtomically(root_ + "/dry_run.sh", shown).ok());
  const std::string run = "cd '" + root_ + "' && env -i PATH=/usr/bin:/bin HF_HUB_CACHE='" + root_ +
                          "/hub' bash dry_run.sh 2>&1";
  FILE* out = ::popen(run.c_str(), "r");
  ASSERT_NE(out, nullptr);
  std::string printed;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, out)) printed.append(buffer, n);
  EXPECT_EQ(::pclose(out), 0) << printed;
  EXPECT_THAT(printed, HasSubstr(folder + "|--port"));
}

}  // namespace
}  // namespace servebench::engine
