#include "net/url.h"

#include <gtest/gtest.h>

namespace servebench::net {
namespace {

TEST(UrlTest, ParsesSchemeHostPortAndPrefix) {
  auto u = ParseUrl("https://example.com/api/");
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->tls);
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->path, "/api");
  EXPECT_EQ(u->HostHeader(), "example.com");
  auto v = ParseUrl("http://127.0.0.1:8000");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->HostHeader(), "127.0.0.1:8000");
  EXPECT_EQ(v->path, "");
  EXPECT_EQ(u->ToString(), "https://example.com/api");
  EXPECT_EQ(v->ToString(), "http://127.0.0.1:8000");
  EXPECT_EQ(ParseUrl("http://[::1]:80/")->ToString(), "http://[::1]");
}

TEST(UrlTest, RejectsOtherSchemesAndBadPorts) {
  EXPECT_FALSE(ParseUrl("ftp://x").ok());
  EXPECT_FALSE(ParseUrl("http://x:99999").ok());
  EXPECT_FALSE(ParseUrl("http://:80").ok());
}

}  // namespace
}  // namespace servebench::net
