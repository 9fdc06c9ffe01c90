// Which sampled GPUs are prefill's and which decode's (role_gpus.h): the session
// plan's workers (role, /metrics, GPU indices) against the GPUs the sampler listed.
#include "telemetry/role_gpus.h"

#include <gtest/gtest.h>

namespace servebench::telemetry {
namespace {

GpuInfo Gpu(const std::string& key, int index, const std::string& endpoint) {
  GpuInfo g;
  g.key = key;
  g.index = index;
  g.endpoint = endpoint;
  return g;
}

// 1 prefill × TP 2 on node 0, 2 decodes × TP 1 sharing node 1 (GPUs 0 and 1).
std::vector<SessionWorker> Workers() {
  return {{"prefill", "http://p0/metrics", {0, 1}},
          {"decode", "http://d0/metrics", {0}},
          {"decode", "http://d1/metrics", {1}}};
}
std::vector<GpuInfo> Sampled() {
  return {Gpu("P0", 0, "http://p0/metrics"), Gpu("P1", 1, "http://p0/metrics"),
          Gpu("D0", 0, "http://d0/metrics"), Gpu("D1", 1, "http://d1/metrics")};
}

TEST(RoleGpusTest, EachSampledGpuBelongsToTheWorkerWhoseEndpointListsItUnderItsPlanIndex) {
  std::string why;
  std::optional<RoleGpus> r = RoleGpusOf(Workers(), Sampled(), &why);
  ASSERT_TRUE(r.has_value()) << why;
  EXPECT_EQ(r->prefill, (std::vector<std::string>{"P0", "P1"}));
  EXPECT_EQ(r->decode, (std::vector<std::string>{"D0", "D1"}));
  EXPECT_EQ(why, "");
}

TEST(RoleGpusTest, TheSplitAddsUpToTheTotal) {
  std::string why;
  std::optional<RoleGpus> roles = RoleGpusOf(Workers(), Sampled(), &why);
  ASSERT_TRUE(roles.has_value()) << why;
  // Per-GPU energies of the rule, split by the roles: the parts sum to the whole.
  SampleSet set;
  set.info.source = "dcgm";
  set.info.period_s = 1;
  set.info.sensor_avg_s = 0;
  set.gpus = Sampled();
  const std::map<std::string, double> watts = {{"P0", 600}, {"P1", 620}, {"D0", 250}, {"D1", 230}};
  for (int t = 0; t <= 20; ++t) {
    for (const auto& [gpu, w] : watts) {
      PowerSample s;
      s.t_ns = int64_t{t} * 1'000'000'000;
      s.gpu = gpu;
      s.power_w = w;
      set.samples.push_back(s);
    }
  }
  PowerInputs in;
  in.samples = &set;
  in.window = {2'000'000'000, 18'000'000'000, 16};
  in.work = {10, 1000, 500};
  in.expected_gpus = 4;
  in.roles = roles;
  PowerReport r = ComputePowerReport(in);
  ASSERT_TRUE(r.valid()) << PowerReportJson(r);
  EXPECT_NEAR(*r.prefill_gpu_energy_j, (600 + 620) * 16.0, 1e-6);
  EXPECT_NEAR(*r.decode_gpu_energy_j, (250 + 230) * 16.0, 1e-6);
  EXPECT_NEAR(*r.prefill_gpu_energy_j + *r.decode_gpu_energy_j, *r.total_gpu_energy_j, 1e-6);
}

TEST(RoleGpusTest, NoPrefillOrNoDecodeWorkerIsNoSplitAndNothingToSay) {
  std::string why = "stale";
  EXPECT_FALSE(RoleGpusOf({{"aggregated", "http://a/metrics", {0}}},
                          {Gpu("A0", 0, "http://a/metrics")}, &why)
                   .has_value());
  EXPECT_EQ(why, "");
  EXPECT_FALSE(RoleGpusOf({}, Sampled(), &why).has_value());
  EXPECT_EQ(why, "");
}

TEST(RoleGpusTest, AWorkerGpuNoSampledGpuMatchesIsNoSplitNamingIt) {
  std::vector<GpuInfo> sampled = Sampled();
  sampled[3].index = 5;  // decode[1]'s endpoint lists GPU 5, its plan says GPU 1
  std::string why;
  EXPECT_FALSE(RoleGpusOf(Workers(), sampled, &why).has_value());
  EXPECT_EQ(why,
            "no prefill/decode split: the decode worker at http://d1/metrics runs on GPU 1, "
            "which no sampled GPU of that endpoint is");
}

TEST(RoleGpusTest, ASampledGpuOfNoWorkerIsNoSplitNamingIt) {
  // A local source (no endpoint) lists the machine's GPUs: none is a worker's.
  std::vector<GpuInfo> sampled = Sampled();
  sampled.push_back(Gpu("GPU-local", 0, ""));
  std::string why;
  EXPECT_FALSE(RoleGpusOf(Workers(), sampled, &why).has_value());
  EXPECT_EQ(why,
            "no prefill/decode split: sampled GPU GPU-local (a local source) belongs to no worker");
}

}  // namespace
}  // namespace servebench::telemetry
