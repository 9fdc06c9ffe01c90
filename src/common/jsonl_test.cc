#include "common/jsonl.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/atomic_file.h"
#include "common/testing/files.h"

namespace servebench {
namespace {

TEST(JsonlTest, EachNonBlankLineIsOneObjectWithItsLineNumber) {
  const std::string path = testing::FreshTestDir("jsonl") + "/a.jsonl";
  ASSERT_TRUE(WriteFileAtomically(path, "{\"a\":1}\r\n\n  \n{\"a\":2}").ok());
  std::vector<std::pair<size_t, int64_t>> seen;
  Status s = ForEachJsonlObject(path, "test lines", [&](size_t n, const boost::json::object& o) {
    seen.emplace_back(n, o.at("a").as_int64());
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(seen, (std::vector<std::pair<size_t, int64_t>>{{1, 1}, {4, 2}}));
}

TEST(JsonlTest, ABadLineStopsWithItsLocation) {
  const std::string path = testing::FreshTestDir("jsonl") + "/b.jsonl";
  ASSERT_TRUE(WriteFileAtomically(path, "{\"a\":1}\n[1]\n{\"a\":3}\n").ok());
  int calls = 0;
  Status s = ForEachJsonlObject(path, "lines hold {a}", [&](size_t, const boost::json::object&) {
    ++calls;
    return Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), path + ":2: not a JSON object (lines hold {a})");
  EXPECT_EQ(calls, 1);
  Status refused = ForEachJsonlObject(path, "x", [](size_t n, const boost::json::object&) {
    return n == 1 ? Status::InvalidArgument("no field b") : Status::Ok();
  });
  EXPECT_EQ(refused.message(), path + ":1: no field b");
  EXPECT_EQ(ForEachJsonlObject(path + ".missing", "x", nullptr).code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace servebench
