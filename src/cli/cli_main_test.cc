// End-to-end checks of the servebench binary's top level (runs the real binary).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct Result {
  int exit_code;
  std::string output;
};

Result RunServebench(const std::string& args) {
  std::string cmd = std::string(SERVEBENCH_BIN) + " " + args + " 2>&1";
  Result result{-1, ""};
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) result.output.append(buf.data(), n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

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

TEST(CliMainTest, NoArgumentsIsUsageError) {
  EXPECT_EQ(RunServebench("").exit_code, 64);
}

}  // namespace
