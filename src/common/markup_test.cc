#include "common/markup.h"

#include <gtest/gtest.h>

namespace servebench {
namespace {

TEST(MarkupTest, EntitiesAndForbiddenControlCharacters) {
  EXPECT_EQ(EscapeMarkup(R"(<a href="x">Tom & 'Jerry'</a>)"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;");
  EXPECT_EQ(EscapeMarkup("tab\tnew\nline\x01"
                         "bell\x07"),
            "tab\tnew\nline bell ");
  EXPECT_EQ(EscapeMarkup("héllo"), "héllo");
}

}  // namespace
}  // namespace servebench
