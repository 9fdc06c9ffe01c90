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

TEST(CatalogueTest, EveryProblemIsLocatedAndReportedAtOnce) {
  auto hw = R"(hardware:
  x1:
    hbm_gbs: 80
    hbm_tb_per_s: 3
    dense_tflops: {bf16: fast}
    scaleup_gb_per_s: 1
    gpus_per_node: 8
    matmul_efficiency: 1.5
    hbm_efficiency: 0.5
    allreduce_bus_efficiency: 0.5
    allreduce_latency_us: 1
    alltoall_latency_us: 1
    step_overhead_us: 1
    layer_overhead_us: 1
    moe_layer_overhead_us: 1
    sources: {hbm_tb_per_s: a, dense_tflops: a, scaleup_gb_per_s: a, gpus_per_node: a,
              matmul_efficiency: a, hbm_efficiency: a, allreduce_bus_efficiency: a,
              allreduce_latency_us: a, alltoall_latency_us: a, step_overhead_us: a,
              layer_overhead_us: a, moe_layer_overhead_us: a}
)";
  auto c = Catalogue::FromYaml(hw, "models: {}", "data/sim/hardware.yaml");
  ASSERT_FALSE(c.ok());
  const std::string m = c.status().message();
  EXPECT_NE(m.find("data/sim/hardware.yaml:3:5: hardware.x1.hbm_gbs: unknown field"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("did you mean 'hbm_gb'?"), std::string::npos) << m;
  EXPECT_NE(m.find("hardware.x1.hbm_gb: is required but missing"), std::string::npos) << m;
  EXPECT_NE(m.find("data/sim/hardware.yaml:5:26: hardware.x1.dense_tflops.bf16:"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(":8:24: hardware.x1.matmul_efficiency: must be in (0, 1]"), std::string::npos)
      << m;
}

TEST(CatalogueTest, UnknownNamesListTheKnownOnes) {
  auto cat = Catalogue::BuiltIn();
  auto m = cat->FindHardware("tpu9");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("h200"), std::string::npos);
}

}  // namespace
}  // namespace servebench::sim
