#include "engine/engine_catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/atomic_file.h"

namespace servebench::engine {
namespace {

using ::testing::HasSubstr;

std::string Shipped(const std::string& name) {
  auto text = ReadFile(std::string(SERVEBENCH_SOURCE_DIR) + "/data/engine/" + name);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? *text : "";
}

TEST(EngineCatalogTest, ShippedDataLoadsAndCoversEveryEngine) {
  auto catalog = LoadEngineCatalog(std::string(SERVEBENCH_SOURCE_DIR) + "/data/engine");
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  for (const char* engine : {"vllm", "sglang", "trtllm", "llamacpp", "sim"}) {
    EXPECT_EQ(catalog->engines.count(engine), 1u) << engine;
  }
  EXPECT_EQ(catalog->engines.at("vllm").Flag("tensor_parallel"), "--tensor-parallel-size");
  EXPECT_EQ(catalog->signatures.signatures.front().failure_class.name(),
            "server.spec.eagle3_unsupported");
  EXPECT_EQ(catalog->signatures.situations.at("readiness_timeout"),
            failure_class::kServerReadinessTimeout);
}

TEST(EngineCatalogTest, DefaultCatalogIsFoundFromTheBuildTree) {
  auto catalog = DefaultEngineCatalog();
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  EXPECT_FALSE((*catalog)->origin.empty());
}

TEST(EngineCatalogTest, MissingConceptIsNamedWithItsEngine) {
  std::string flags = Shipped("flags.yaml");
  const std::string line = "      max_model_len: --context-length\n";
  ASSERT_NE(flags.find(line), std::string::npos);
  flags.erase(flags.find(line), line.size());
  auto catalog = ParseEngineCatalog(flags, Shipped("failure_signatures.yaml"), "x");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(),
              HasSubstr("engines.sglang.flags: `max_model_len` is missing"));
}

TEST(EngineCatalogTest, FlagWithoutDashIsRejected) {
  std::string flags = Shipped("flags.yaml");
  flags.replace(flags.find("--max-model-len"), 15, "max-model-len");
  auto catalog = ParseEngineCatalog(flags, Shipped("failure_signatures.yaml"), "x");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(), HasSubstr("\"max-model-len\" must start with '-'"));
}

TEST(EngineCatalogTest, SignatureWithoutMatchIsRejectedWithItsLine) {
  const std::string sigs = "version: 1\nsignatures:\n  - class: server.y\n    meaning: m\n";
  auto catalog = ParseEngineCatalog(Shipped("flags.yaml"), sigs, "dir");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(), HasSubstr("dir/failure_signatures.yaml:3:"));
  EXPECT_THAT(catalog.status().message(), HasSubstr("server.y has no `match`"));
}

TEST(EngineCatalogTest, ClassOutsideTheFailureClassGrammarIsRejectedWithItsLine) {
  const std::string sigs = "version: 1\nsignatures:\n  - class: engine-died\n    match: [boom]\n";
  auto catalog = ParseEngineCatalog(Shipped("flags.yaml"), sigs, "dir");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(), HasSubstr("dir/failure_signatures.yaml:3:"));
  EXPECT_THAT(catalog.status().message(),
              HasSubstr("failure class \"engine-died\" is not <domain>.<name>"));
}

TEST(EngineCatalogTest, SituationClassOutsideTheGrammarIsRejected) {
  std::string sigs = Shipped("failure_signatures.yaml");
  sigs.replace(sigs.find("died_during_run: server.died_during_run"), 39,
               "died_during_run: EngineDied");
  auto catalog = ParseEngineCatalog(Shipped("flags.yaml"), sigs, "dir");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(), HasSubstr("situations: `died_during_run`"));
  EXPECT_THAT(catalog.status().message(), HasSubstr("\"EngineDied\""));
}

TEST(EngineCatalogTest, MisspelledKeyIsLocatedWithASuggestion) {
  std::string flags = Shipped("flags.yaml");
  flags.replace(flags.find("    readiness_poll_ms:"), 22, "    readiness_pol_ms:");
  auto catalog = ParseEngineCatalog(flags, Shipped("failure_signatures.yaml"), "dir");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(),
              HasSubstr(":5: engines.vllm.readiness_pol_ms: unknown field"));
  EXPECT_THAT(catalog.status().message(), HasSubstr("did you mean 'readiness_poll_ms'?"));
  EXPECT_THAT(catalog.status().message(), HasSubstr("dir/flags.yaml:"));
}

TEST(EngineCatalogTest, MalformedYamlIsAnErrorNotAnException) {
  auto catalog = ParseEngineCatalog("engines: [", Shipped("failure_signatures.yaml"), "dir");
  ASSERT_FALSE(catalog.ok());
  EXPECT_THAT(catalog.status().message(), HasSubstr("dir/flags.yaml"));
}

}  // namespace
}  // namespace servebench::engine
