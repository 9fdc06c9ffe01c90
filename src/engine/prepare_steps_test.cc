// Prepare steps run in order, in the command's folder with its environment, before
// the engine; a failing step stops there and is classified from its output.
#include "engine/prepare_steps.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "common/atomic_file.h"

namespace servebench::engine {
namespace {

using ::testing::HasSubstr;

std::string TempDir(const std::string& name) {
  std::string dir = (std::filesystem::temp_directory_path() /
                     ("servebench-prepare-" + name + "-" + std::to_string(::getpid())))
                        .string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(PrepareStepsTest, StepsRunInOrderInTheCommandsFolderWithItsEnvironment) {
  std::string dir = TempDir("order");
  ServerCommand command;
  command.engine = "vllm";
  command.working_dir = dir;
  command.env = {{"DRAFT", "org/draft"}};
  command.prepare = {{"sh", "-c", "echo first >> steps.txt"},
                     {"sh", "-c", "echo \"second $DRAFT\" >> steps.txt"}};
  EngineFailure failure;
  Status ran = RunPrepareSteps(command, dir + "/prepare", 30, &failure);
  ASSERT_TRUE(ran.ok()) << ran.ToString();
  auto text = ReadFile(dir + "/steps.txt");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "first\nsecond org/draft\n");
  std::filesystem::remove_all(dir);
}

TEST(PrepareStepsTest, AFailingStepStopsTheRestAndIsClassifiedFromItsOutput) {
  std::string dir = TempDir("fail");
  ServerCommand command;
  command.engine = "vllm";
  command.working_dir = dir;
  command.prepare = {{"sh", "-c", "echo '401 Client Error: Unauthorized for url' >&2; exit 1"},
                     {"sh", "-c", "touch never"}};
  EngineFailure failure;
  Status ran = RunPrepareSteps(command, dir + "/prepare", 30, &failure);
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(failure.failure_class.name(), "model.access");
  EXPECT_THAT(failure.summary, HasSubstr("prepare step 1 `sh -c"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/never"));
  command.prepare = {{"sh", "-c", "exit 3"}};
  ran = RunPrepareSteps(command, dir + "/prepare", 30, &failure);
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(failure.failure_class, failure_class::kInfraPrepareFailed);
  EXPECT_THAT(failure.summary, HasSubstr("exited with code 3"));
  std::filesystem::remove_all(dir);
}

TEST(PrepareStepsTest, AStepPastItsTimeoutIsStopped) {
  std::string dir = TempDir("timeout");
  ServerCommand command;
  command.engine = "vllm";
  command.working_dir = dir;
  command.prepare = {{"sleep", "30"}};
  EngineFailure failure;
  Status ran = RunPrepareSteps(command, dir + "/prepare", 1, &failure);
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(failure.failure_class, failure_class::kInfraPrepareFailed);
  EXPECT_THAT(failure.summary, HasSubstr("still running after 1 s"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace servebench::engine
