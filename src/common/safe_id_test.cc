#include "common/safe_id.h"

#include <gtest/gtest.h>

#include <string>

namespace servebench {
namespace {

TEST(SafeIdTest, DefaultRunIdsAndLabelsAreSafe) {
  EXPECT_TRUE(IsSafeId("20261129T203000Z-gpu-node.example.com-4242"));
  EXPECT_TRUE(IsSafeId("nightly_2026-11-29"));
}

TEST(SafeIdTest, PathsQuotesAndFlagsAreNot) {
  for (const char* id :
       {"a/b", "..", ".hidden", "-rf", "it's", "a b", "x;drop", "", "a\nb", "caf\xc3\xa9"}) {
    EXPECT_FALSE(IsSafeId(id)) << id;
  }
  EXPECT_FALSE(IsSafeId(std::string(kMaxIdLength + 1, 'a')));
  EXPECT_TRUE(IsSafeId(std::string(kMaxIdLength, 'a')));
}

TEST(SafeIdTest, MessageSaysWhatIsAllowedAndWhy) {
  Status st = CheckSafeId("--run-id", "a/b");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--run-id 'a/b'"), std::string::npos);
  EXPECT_NE(st.message().find("names files"), std::string::npos);
}

}  // namespace
}  // namespace servebench
