#include "common/status.h"

#include <gtest/gtest.h>

namespace servebench {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("x = " + std::to_string(x) + ": must be even");
  return x / 2;
}

Status Quarter(int x, int* out) {
  SB_ASSIGN_OR_RETURN(int half, Half(x));
  SB_ASSIGN_OR_RETURN(*out, Half(half));
  return Status::Ok();
}

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status s = Status::NotFound("recipe.yaml: no such file");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "not found: recipe.yaml: no such file");
  EXPECT_EQ(s.WithContext("loading").message(), "loading: recipe.yaml: no such file");
}

TEST(StatusTest, AssignOrReturnPropagatesFirstError) {
  int out = 0;
  EXPECT_TRUE(Quarter(8, &out).ok());
  EXPECT_EQ(out, 2);
  Status s = Quarter(6, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "x = 3: must be even");
}

TEST(StatusOrDeathTest, ValueOfErrorAborts) {
  StatusOr<int> bad = Status::Internal("boom");
  EXPECT_DEATH((void)bad.value(), "boom");
}

}  // namespace
}  // namespace servebench
