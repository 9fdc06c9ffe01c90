#include "sim/catalogue.h"

#include <gtest/gtest.h>

namespace servebench::sim {
namespace {

TEST(CatalogueTest, BuiltInHasTheRequiredEntries) {
  auto cat = Catalogue::BuiltIn();
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  for (const char* hw : {"h100", "h200", "b200", "b300", "gb200", "mi300x", "mi325x", "mi355x"}) {
    EXPECT_TRUE(cat->FindHardware(hw).ok()) << hw;
  }
  for (const char* m :
       {"llama-3.1-8b", "llama-3.1-70b", "deepseek-r1", "gpt-oss-120b", "minimax-m3"}) {
    EXPECT_TRUE(cat->FindModel(m).ok()) << m;
  }
  EXPECT_EQ(cat->models.at("deepseek-r1").attention, "mla");
  EXPECT_TRUE(cat->models.at("deepseek-r1").is_moe());
  EXPECT_TRUE(cat->FindModel("meta-llama/Llama-3.1-8B-Instruct").ok()) << "hub names resolve too";
}

TEST(CatalogueTest, SourceFileIsTheEmbeddedOne) {
  auto dir = Catalogue::FromDir(std::string(SERVEBENCH_SOURCE_DIR) + "/data/sim");
  auto built_in = Catalogue::BuiltIn();
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(dir->models.size(), built_in->models.size());
  EXPECT_EQ(dir->hardware.size(), built_in->hardware.size());
}

TEST(CatalogueTest, NumberWithoutSourceIsRejected) {
  auto hw = R"(hardware:
  x1:
    hbm_gb: 80
    hbm_tb_per_s: 3
    dense_tflops: {bf16: 100}
    scaleup_gb_per_s: 1
    gpus_per_node: 8
    matmul_efficiency: 0.5
    hbm_efficiency: 0.5
    allreduce_bus_efficiency: 0.5
    allreduce_latency_us: 1
    alltoall_latency_us: 1
    step_overhead_us: 1
    layer_overhead_us: 1
    moe_layer_overhead_us: 1
    sources: {hbm_gb: a}
)";
  auto c = Catalogue::FromYaml(hw, "models: {}");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("hardware.x1.hbm_tb_per_s: no source given"),
            std::string::npos)
      << c.status().message();
}

TEST(CatalogueTest, UnknownNamesListTheKnownOnes) {
  auto cat = Catalogue::BuiltIn();
  auto m = cat->FindHardware("tpu9");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("h200"), std::string::npos);
}

}  // namespace
}  // namespace servebench::sim
