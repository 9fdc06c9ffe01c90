// Test helper: compares text with a golden file under src/engine/testdata/golden/.
// SERVEBENCH_UPDATE_GOLDEN=1 rewrites the file instead (then review the diff).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace servebench::engine::testing {

inline std::string GoldenPath(const std::string& name) {
  return std::string(SERVEBENCH_SOURCE_DIR) + "/src/engine/testdata/golden/" + name + ".txt";
}

inline void ExpectMatchesGolden(const std::string& name, const std::string& actual) {
  const std::string path = GoldenPath(name);
  const char* update = std::getenv("SERVEBENCH_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing golden file " << path
                         << " (run with SERVEBENCH_UPDATE_GOLDEN=1 to create it)\nactual:\n"
                         << actual;
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(expected.str(), actual) << "golden " << path << " differs";
}

}  // namespace servebench::engine::testing
