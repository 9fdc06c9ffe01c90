#include "common/json_string.h"

#include <gtest/gtest.h>

namespace servebench {
namespace {

std::string Json(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

// Expected strings are what Python 3's json.dumps(s, ensure_ascii=False) prints.
TEST(JsonStringTest, EscapesAsPythonJsonDumpsWithoutEnsureAscii) {
  EXPECT_EQ(Json("plain"), "\"plain\"");
  EXPECT_EQ(Json("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(Json("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(Json(std::string_view("\x00\x01\x1f", 3)), "\"\\u0000\\u0001\\u001f\"");
  EXPECT_EQ(Json("\x7f"), "\"\x7f\"");
  EXPECT_EQ(Json("héllo ✓"), "\"héllo ✓\"");
  EXPECT_EQ(Json(""), "\"\"");
}

}  // namespace
}  // namespace servebench
