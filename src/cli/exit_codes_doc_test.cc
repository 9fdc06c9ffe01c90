// The README's exit-code table is the one every command follows: it lists exactly
// the codes of common/exit_codes.h, each once, and --help prints the same table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "common/exit_codes.h"
#include "common/testing/files.h"
#include "common/testing/shell.h"

namespace {

TEST(ExitCodesDocTest, ReadmeTableListsEveryCodeOnce) {
  std::string readme =
      servebench::testing::ReadFileOrEmpty(std::string(SERVEBENCH_SOURCE_DIR) + "/README.md");
  ASSERT_FALSE(readme.empty());
  size_t table = readme.find("## Exit codes");
  ASSERT_NE(table, std::string::npos) << "README.md has an 'Exit codes' section";
  std::string section = readme.substr(table, readme.find("\n## ", table + 1) - table);
  for (const servebench::ExitCodeMeaning& e : servebench::kExitCodeTable) {
    std::string row = "| " + std::to_string(e.code) + " |";
    size_t at = section.find(row);
    EXPECT_NE(at, std::string::npos) << "no row for exit code " << e.code;
    EXPECT_EQ(section.find(row, at + 1), std::string::npos) << "exit code " << e.code << " twice";
  }
}

TEST(ExitCodesDocTest, HelpPrintsTheSameMeanings) {
  servebench::testing::ShellResult r = servebench::testing::RunServebench("validate --help");
  for (const servebench::ExitCodeMeaning& e : servebench::kExitCodeTable) {
    EXPECT_NE(r.output.find(e.meaning), std::string::npos) << e.meaning;
  }
}

}  // namespace
