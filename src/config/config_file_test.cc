#include "config/config_file.h"

#include <gtest/gtest.h>

#include "config/golden_al.h"

namespace servebench::config {
namespace {

// A reader for `{name: text, port: int}` maps, as a data-file loader writes one.
ConfigReader ServerReader(std::string* name, int64_t* port) {
  return [=](const LoadContext& ctx, const YNode& root) {
    FieldReader r(ctx, root, "server", {"name", "port"});
    *name = r.String("name", /*required=*/true).value_or("");
    *port = r.Int("port", /*required=*/true).value_or(0);
  };
}

TEST(ConfigFileTest, ValidFileIsRead) {
  std::string name;
  int64_t port = 0;
  ASSERT_TRUE(ReadConfigText("name: sim\nport: 8000\n", "s.yaml", ServerReader(&name, &port)).ok());
  EXPECT_EQ(name, "sim");
  EXPECT_EQ(port, 8000);
}

TEST(ConfigFileTest, EveryProblemIsReportedAtOnceWithFileLineAndColumn) {
  std::string name;
  int64_t port = 0;
  Status s = ReadConfigText("name: sim\nprot: 8000\nport: eighty\n", "data/s.yaml",
                            ServerReader(&name, &port));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("2 problems in data/s.yaml"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("data/s.yaml:2:1: server.prot: unknown field; allowed: name or "
                             "port; did you mean 'port'?"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("data/s.yaml:3:7: server.port: is 'eighty' (string); expected an "
                             "integer"),
            std::string::npos)
      << s.message();
}

TEST(ConfigFileTest, InvalidYamlIsLocatedNotThrown) {
  std::string name;
  int64_t port = 0;
  Status s = ReadConfigText("name: [sim\n", "s.yaml", ServerReader(&name, &port));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("s.yaml:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("invalid YAML"), std::string::npos) << s.message();
}

TEST(ConfigFileTest, MissingFileIsNotFound) {
  std::string name;
  int64_t port = 0;
  Status s = ReadConfigFile("/nonexistent/servebench.yaml", ServerReader(&name, &port));
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/servebench.yaml"), std::string::npos);
}

TEST(GoldenAlTest, EveryShippedTableIsValid) {
  ASSERT_FALSE(EmbeddedGoldenTables().empty());
  for (const EmbeddedTable& t : EmbeddedGoldenTables()) {
    auto table = ParseGoldenTable(t.yaml, t.name);
    ASSERT_TRUE(table.ok()) << table.status().message();
    EXPECT_FALSE(table->empty()) << t.name;
  }
  EXPECT_EQ(GoldenTableNames().size(), 9u);
  auto on = LookupGoldenAl("qwen3.5_mtp", "qwen3.5-397b-a17b-nvfp4", /*thinking=*/true, 1);
  auto off = LookupGoldenAl("qwen3.5_mtp", "qwen3.5-397b-a17b-nvfp4", /*thinking=*/false, 1);
  ASSERT_TRUE(on.ok() && off.ok()) << on.status().ToString() << off.status().ToString();
  EXPECT_DOUBLE_EQ(*on, 1.93);
  EXPECT_DOUBLE_EQ(*off, 1.92);
  auto missing = LookupGoldenAl("minimaxm3_eagle3", "minimax-m3", true, 9);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(GoldenAlTest, MalformedTableNamesEachBadEntry) {
  auto table = ParseGoldenTable(
      "m:\n  thinking_on: {1: 1.9, 2: 9.0}\n  thinking_offf: {1: 1.5}\n  thinking_off: {x: 1.5}\n",
      "data/golden_al/t.yaml");
  ASSERT_FALSE(table.ok());
  const std::string m = table.status().message();
  EXPECT_NE(m.find("data/golden_al/t.yaml:2:28: m.thinking_on.2: is '9.0'; with 2 speculative "
                   "tokens an acceptance length is a number in [1, 3]"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("t.yaml:3:3: m.thinking_offf: unknown thinking mode"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'thinking_off'?"), std::string::npos) << m;
  EXPECT_NE(m.find("t.yaml:4:18: m.thinking_off.x: is not a number of speculative tokens"),
            std::string::npos)
      << m;
}

TEST(GoldenAlTest, UnknownTableSuggestsTheClosest) {
  auto al = LookupGoldenAl("qwen3.5_mpt", "m", false, 1);
  ASSERT_FALSE(al.ok());
  EXPECT_EQ(al.status().code(), StatusCode::kNotFound);
  EXPECT_NE(al.status().message().find("did you mean 'qwen3.5_mtp'?"), std::string::npos)
      << al.status().message();
}

}  // namespace
}  // namespace servebench::config
