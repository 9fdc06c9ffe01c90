#include "sim/tool_call_text.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "sim/tokenizer.h"

namespace servebench::sim {
namespace {

bool IsJsonObject(const std::string& s) {
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(s, ec);
  return !ec && v.is_object();
}

TEST(ToolCallTextTest, NaturalStopClosesTheObjectWhateverTheBatching) {
  Tokenizer tok;
  for (int batch : {1, 3, 7}) {
    TextSource text(&tok, 42);
    ToolCallText call(&text);
    std::string args;
    int left = 20;
    while (left > 0) {
      int n = std::min(batch, left);
      left -= n;
      call.Next(n, /*closes=*/left == 0, &args);
    }
    EXPECT_EQ(call.tokens(), 20);
    EXPECT_TRUE(IsJsonObject(args)) << args;
    EXPECT_TRUE(args.starts_with("{\"query\": \"")) << args;
  }
}

TEST(ToolCallTextTest, OneTokenCallIsAnEmptyObject) {
  Tokenizer tok;
  TextSource text(&tok, 1);
  ToolCallText call(&text);
  std::string args;
  call.Next(1, true, &args);
  EXPECT_EQ(args, "{}");
}

TEST(ToolCallTextTest, CutBeforeTheStopLeavesInvalidJson) {
  Tokenizer tok;
  TextSource text(&tok, 7);
  ToolCallText call(&text);
  std::string args;
  call.Next(5, /*closes=*/false, &args);
  EXPECT_FALSE(IsJsonObject(args)) << args;
}

}  // namespace
}  // namespace servebench::sim
