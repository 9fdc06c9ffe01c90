// Test-only file helpers. Header-only.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace servebench::testing {

// A whole file as a string, "" when it cannot be read (the assertion that follows
// says what was expected).
inline std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A new, empty folder for the running test: <tmp>/sb_<prefix>_<pid>_<test name>. ctest
// runs the tests of one binary in parallel processes, so each test gets its own.
inline std::string FreshTestDir(const std::string& prefix) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("sb_" + prefix + "_" + std::to_string(::getpid()) + "_" +
       ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace servebench::testing
