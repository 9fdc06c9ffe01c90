#include "common/failure_class.h"

#include <gtest/gtest.h>

namespace servebench {
namespace {

TEST(FailureClassTest, EveryBuiltInClassFollowsTheGrammar) {
  for (const FailureClass* c :
       {&failure_class::kServerDiedBeforeReady, &failure_class::kServerReadinessTimeout,
        &failure_class::kServerDiedDuringRun, &failure_class::kInfraStartFailed,
        &failure_class::kInfraPrepareFailed, &failure_class::kRunCanaryFailed,
        &failure_class::kRunInterrupted, &failure_class::kClientError,
        &failure_class::kClientInvalidRun, &failure_class::kEvalError,
        &failure_class::kEvalBelowThreshold, &failure_class::kUnknown}) {
    StatusOr<FailureClass> parsed = FailureClass::Parse(c->name());
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(*parsed, *c);
  }
}

TEST(FailureClassTest, CatalogueStyleClassesParseAndNameTheirDomain) {
  StatusOr<FailureClass> c = FailureClass::Parse("server.oom.kv_cache");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->domain(), "server");
  EXPECT_EQ(c->name(), "server.oom.kv_cache");
  EXPECT_EQ(failure_class::kUnknown.domain(), "");
}

TEST(FailureClassTest, EmptyTextIsNoFailure) {
  StatusOr<FailureClass> c = FailureClass::Parse("");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->empty());
  EXPECT_EQ(*c, FailureClass());
}

TEST(FailureClassTest, TextOutsideTheGrammarIsRefusedWithTheGrammar) {
  for (const char* bad : {"engine-died", "oom", "Server.oom", "server.", "server..x", "gpu.hot",
                          "server.oom-kv", "server.9lives", " server.oom"}) {
    StatusOr<FailureClass> c = FailureClass::Parse(bad);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.status().message().find(bad), std::string::npos) << c.status().message();
    EXPECT_NE(c.status().message().find("domain one of server, infra"), std::string::npos);
  }
}

}  // namespace
}  // namespace servebench
