#include "record/exact_json.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace servebench::record {
namespace {

TEST(ExactJsonTest, DoublesReadBackAsWritten) {
  for (double x : {1000.0 / 9.6, 0.1, 1.0 / 3, 123456.789e-7, 5e-324, 1.7976931348623157e308}) {
    std::string text = boost::json::serialize(boost::json::value(x));
    StatusOr<boost::json::value> v = ParseJsonExactly(text);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_EQ(v->as_double(), x) << text;
  }
}

TEST(ExactJsonTest, EverythingElseParsesAsBoostJsonDoes) {
  std::string text =
      R"({"a": [1, -2, 18446744073709551615, true, null, "x\u00e9"], "b": {"c": 2.5}})";
  StatusOr<boost::json::value> v = ParseJsonExactly(text);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(*v, boost::json::parse(text));
}

TEST(ExactJsonTest, TextThatIsNotOneJsonValueIsRefused) {
  EXPECT_FALSE(ParseJsonExactly("{").ok());
  EXPECT_FALSE(ParseJsonExactly("{} {}").ok());
  EXPECT_FALSE(ParseJsonExactly("").ok());
}

}  // namespace
}  // namespace servebench::record
