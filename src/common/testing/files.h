// Test-only: a whole file as a string, "" when it cannot be read (the assertion that
// follows says what was expected). Header-only.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace servebench::testing {

inline std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace servebench::testing
