// End-to-end checks of the servebench binary's top level (runs the real binary).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "common/testing/shell.h"

namespace {

using Result = servebench::testing::ShellResult;
using servebench::testing::RunServebench;

TEST(CliMainTest, VersionPrintsVersionAndGitRevision) {
  Result r = RunServebench("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("servebench 0."), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(git "), std::string::npos) << r.output;
}

TEST(CliMainTest, HelpListsCommands) {
  Result r = RunServebench("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("Commands:"), std::string::npos) << r.output;
}

TEST(CliMainTest, UnknownCommandIsUsageError) {
  Result r = RunServebench("frobnicate");
  EXPECT_EQ(r.exit_code, 64);
  EXPECT_NE(r.output.find("unknown command 'frobnicate'"), std::string::npos) << r.output;
}

TEST(CliMainTest, NoArgumentsIsUsageError) { EXPECT_EQ(RunServebench("").exit_code, 64); }

}  // namespace
