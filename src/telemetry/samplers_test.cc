// Every sampler against a real stand-in: NVML and amdsmi through dlopen of small
// shared libraries built in the test tree (real .so files exporting the vendor
// symbols with known values), nvidia-smi and amd-smi as real processes printing
// the real formats (testdata/bin), a DCGM scrape through an injected GET; then
// `auto` choosing the first that works and none with a note when nothing does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "common/clock.h"
#include "telemetry/amdsmi_sampler.h"
#include "telemetry/dcgm_sampler.h"
#include "telemetry/nvml_sampler.h"
#include "telemetry/samples_csv.h"
#include "telemetry/smi_samplers.h"
#include "telemetry/telemetry.h"

namespace servebench::telemetry {
namespace {

const std::string kBin = std::string(SERVEBENCH_SOURCE_DIR) + "/src/telemetry/testdata/bin/";

SourceOptions Options(double period_s) {
  SourceOptions o;
  o.period_s = period_s;
  o.anchor = TimeAnchor::Now();
  return o;
}

// Runs the sampler for `wall_s` and returns its set and the monotonic span sampled.
SampleSet Sample(Sampler* s, double wall_s, int64_t* from, int64_t* to) {
  EXPECT_TRUE(s->Start().ok());
  int64_t t0 = MonotonicNowNs();
  EXPECT_TRUE(s->WaitForSamplesAfter(t0 - 60'000'000'000, t0 + 20'000'000'000));
  *from = MonotonicNowNs();
  std::this_thread::sleep_for(std::chrono::duration<double>(wall_s));
  *to = MonotonicNowNs();
  EXPECT_TRUE(s->WaitForSamplesAfter(*to, *to + 20'000'000'000));
  return s->Stop();
}

PowerReport Report(const SampleSet& set, int64_t from, int64_t to, const TimeAnchor& anchor) {
  PowerInputs in;
  in.samples = &set;
  in.anchor = anchor;
  in.window = {from, to, 0};
  in.work = {1, 1, 1};
  return ComputePowerReport(in);
}

std::set<std::string> Keys(const SampleSet& set) {
  std::set<std::string> keys;
  for (const PowerSample& s : set.samples) keys.insert(s.gpu);
  return keys;
}

TEST(NvmlSamplerTest, TheFakeLibrarysKnownPowerAndCounterComeThroughDlopen) {
  setenv("FAKE_NVML_POWER_MW", "300000,400000", 1);
  unsetenv("FAKE_NVML_MIG");
  SourceOptions o = Options(0.05);
  StatusOr<std::unique_ptr<Sampler>> s = OpenNvml(FAKE_NVML_LIBRARY, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ((*s)->gpus().size(), 2u);
  EXPECT_EQ((*s)->gpus()[1].uuid, "GPU-fa4e0000-0000-4000-8000-000000000001");
  EXPECT_DOUBLE_EQ(*(*s)->gpus()[0].power_limit_w, 700.0);
  EXPECT_FALSE(*(*s)->gpus()[0].mig_enabled);
  EXPECT_EQ((*s)->info().field, "nvmlDeviceGetPowerUsage");
  int64_t from = 0, to = 0;
  SampleSet set = Sample(s->get(), 0.6, &from, &to);
  PowerReport r = Report(set, from, to, o.anchor);
  EXPECT_NEAR(*r.integration.avg_total_power_w, 700.0, 1e-6);
  EXPECT_EQ(*set.samples.front().mem_used_mib, 100.0);
  // The counter grows at the configured power: the cross-check agrees.
  ASSERT_TRUE(r.energy_counter_rel_err.has_value());
  EXPECT_LT(*r.energy_counter_rel_err, 0.01);
}

TEST(NvmlSamplerTest, InstantReadingUsesTheFieldValue) {
  setenv("FAKE_NVML_POWER_MW", "300000", 1);
  SourceOptions o = Options(0.05);
  o.reading = PowerReading::kInstant;
  StatusOr<std::unique_ptr<Sampler>> s = OpenNvml(FAKE_NVML_LIBRARY, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->info().field, "NVML_FI_DEV_POWER_INSTANT");
  EXPECT_DOUBLE_EQ(*(*s)->info().sensor_avg_s, 0.0);
  int64_t from = 0, to = 0;
  SampleSet set = Sample(s->get(), 0.2, &from, &to);
  EXPECT_DOUBLE_EQ(*set.samples.back().power_w, 310.0);
}

TEST(NvmlSamplerTest, GpuIdsSelectByIndexOrUuidAndAnUnknownOneIsAnError) {
  setenv("FAKE_NVML_POWER_MW", "100000,200000,300000", 1);
  SourceOptions o = Options(0.05);
  o.gpu_ids = {"2", "GPU-fa4e0000-0000-4000-8000-000000000000"};
  o.gpu_ids_explicit = true;
  StatusOr<std::unique_ptr<Sampler>> s = OpenNvml(FAKE_NVML_LIBRARY, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ((*s)->gpus().size(), 2u);
  int64_t from = 0, to = 0;
  SampleSet set = Sample(s->get(), 0.2, &from, &to);
  EXPECT_EQ(Keys(set).size(), 2u);
  EXPECT_NEAR(*Report(set, from, to, o.anchor).integration.avg_total_power_w, 400.0, 1e-6);
  o.gpu_ids = {"7"};
  StatusOr<std::unique_ptr<Sampler>> bad = OpenNvml(FAKE_NVML_LIBRARY, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("GPU id 7 is not among"), std::string::npos);
}

TEST(NvmlSamplerTest, MigOnTheFakeGpusIsReported) {
  setenv("FAKE_NVML_POWER_MW", "300000", 1);
  setenv("FAKE_NVML_MIG", "1", 1);
  StatusOr<std::unique_ptr<Sampler>> s = OpenNvml(FAKE_NVML_LIBRARY, Options(0.05));
  unsetenv("FAKE_NVML_MIG");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(*(*s)->gpus()[0].mig_enabled);
}

TEST(NvmlSamplerTest, AnAbsentLibraryIsUnavailableAndAFailedInitSaysSo) {
  StatusOr<std::unique_ptr<Sampler>> s = OpenNvml("/nonexistent/libnvidia-ml.so.1", Options(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(s.status().message().find("cannot load"), std::string::npos);
  setenv("FAKE_NVML_INIT_RC", "9", 1);
  StatusOr<std::unique_ptr<Sampler>> init = OpenNvml(FAKE_NVML_LIBRARY, Options(1));
  unsetenv("FAKE_NVML_INIT_RC");
  ASSERT_FALSE(init.ok());
  EXPECT_NE(init.status().message().find("nvmlInit_v2 failed"), std::string::npos);
}

TEST(AmdsmiSamplerTest, TheFakeLibrarysSocketPowerAndEnergyCount) {
  setenv("FAKE_AMDSMI_POWER_W", "500,600", 1);
  SourceOptions o = Options(0.05);
  StatusOr<std::unique_ptr<Sampler>> s = OpenAmdsmi(FAKE_AMDSMI_LIBRARY, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ((*s)->gpus().size(), 2u);
  EXPECT_EQ((*s)->gpus()[0].uuid, "fa4e0000-0000-4000-8000-a00000000000");
  int64_t from = 0, to = 0;
  SampleSet set = Sample(s->get(), 0.6, &from, &to);
  PowerReport r = Report(set, from, to, o.anchor);
  EXPECT_NEAR(*r.integration.avg_total_power_w, 1100.0, 1e-6);
  EXPECT_DOUBLE_EQ(*set.samples.front().util_pct, 88.0);
  ASSERT_TRUE(r.energy_counter_rel_err.has_value());
  EXPECT_LT(*r.energy_counter_rel_err, 0.01);
  EXPECT_FALSE(OpenAmdsmi("/nonexistent/libamd_smi.so", o).ok());
}

TEST(NvidiaSmiSamplerTest, TheStandInsRowsBecomeSamplesOnTheMonotonicClock) {
  setenv("FAKE_SMI_POWER_W", "100,200,300,400", 1);
  SourceOptions o = Options(0.2);
  o.gpu_ids = {"1", "3"};
  StatusOr<std::unique_ptr<Sampler>> s = OpenNvidiaSmi(kBin + "nvidia-smi", o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ((*s)->gpus().size(), 2u);
  EXPECT_EQ((*s)->gpus()[0].key, "GPU-5e1f0000-0000-4000-8000-000000000001");
  EXPECT_DOUBLE_EQ(*(*s)->gpus()[0].power_limit_w, 700.0);
  int64_t from = 0, to = 0;
  int64_t before = MonotonicNowNs();
  SampleSet set = Sample(s->get(), 1.0, &from, &to);
  int64_t after = MonotonicNowNs();
  ASSERT_FALSE(set.samples.empty());
  // Local wall time with ms through the anchor: within the sampled span, ±10 ms.
  for (const PowerSample& p : set.samples) {
    EXPECT_GE(p.t_ns, before - 10'000'000);
    EXPECT_LE(p.t_ns, after + 10'000'000);
  }
  EXPECT_EQ(Keys(set).size(), 2u);
  EXPECT_NEAR(*Report(set, from, to, o.anchor).integration.avg_total_power_w, 600.0, 1e-6);
  std::string csv = SamplesToCsv(set, o.anchor);
  EXPECT_EQ(csv.rfind("timestamp, index, uuid, power.draw [W], ", 0), 0u);
  EXPECT_NE(csv.find(", 3, GPU-5e1f0000-0000-4000-8000-000000000003, 400.00 W, "),
            std::string::npos);
}

TEST(NvidiaSmiSamplerTest, AnAbsentCommandIsUnavailable) {
  StatusOr<std::unique_ptr<Sampler>> s = OpenNvidiaSmi("/nonexistent/nvidia-smi", Options(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnavailable);
}

TEST(AmdSmiSamplerTest, WatchRowsAndEnergySnapshotsOfTheStandIn) {
  setenv("FAKE_SMI_POWER_W", "250,260,270,280", 1);
  SourceOptions o = Options(0.5);  // rounds up: amd-smi watches in whole seconds
  o.gpu_ids = {"0", "2"};
  StatusOr<std::unique_ptr<Sampler>> s = OpenAmdSmi(kBin + "amd-smi", o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ((*s)->info().period_s, 1.0);
  ASSERT_EQ((*s)->gpus().size(), 2u);
  int64_t from = 0, to = 0;
  SampleSet set = Sample(s->get(), 1.5, &from, &to);
  EXPECT_EQ(Keys(set), (std::set<std::string>{"0", "2"}));
  for (const PowerSample& p : set.samples)
    EXPECT_DOUBLE_EQ(*p.power_w, p.gpu == "0" ? 250.0 : 270.0);
  ASSERT_TRUE(set.counter_start && set.counter_end);
  EXPECT_EQ(set.counter_start->energy_j.size(), 2u);
  PowerReport r = Report(set, from, to, o.anchor);
  ASSERT_TRUE(r.accumulator_check.has_value());
  EXPECT_EQ(r.accumulator_check->integrated_gpus.size(), 2u);
}

TEST(DcgmSamplerTest, ScrapesDcgmNamesKeepsOneSeriesPerGpuAndReadsTheSimTimeScale) {
  std::string body =
      "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-a\",modelName=\"NVIDIA H200\"} 612.3\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-b\",GPU_I_ID=\"1\"} 100\n"
      "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-b\",GPU_I_ID=\"2\"} 100\n"
      "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-a\"} 5000000\n"
      "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\"} 9223372036854775794\n"
      "servebench_sim_time_scale 0.25\n"
      "servebench_sim_power_average_s 0.5\n";
  int calls = 0;
  HttpGet get = [&](const std::string& url, double) -> StatusOr<std::string> {
    ++calls;
    if (url != "http://exporter:9400/metrics") return Status::Unavailable("connection refused");
    return body;
  };
  StatusOr<std::unique_ptr<Sampler>> s = OpenDcgm("http://exporter:9400/metrics", Options(1), get);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_DOUBLE_EQ((*s)->info().time_scale, 0.25);
  EXPECT_DOUBLE_EQ(*(*s)->info().sensor_avg_s, 0.5);  // the sim's declared averaging window
  ASSERT_EQ((*s)->gpus().size(), 2u);
  EXPECT_EQ((*s)->gpus()[0].name, "NVIDIA H200");
  EXPECT_TRUE((*s)->gpus()[1].mig_enabled.value_or(false));
  ASSERT_TRUE((*s)->Start().ok());
  ASSERT_TRUE((*s)->WaitForSamplesAfter(0, MonotonicNowNs() + 5'000'000'000));
  SampleSet set = (*s)->Stop();
  ASSERT_GE(set.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(*set.samples[0].power_w, 612.3);
  EXPECT_DOUBLE_EQ(*set.samples[0].energy_j, 5000.0);
  EXPECT_FALSE(set.samples[0].temp_c.has_value());  // the blank sentinel
  EXPECT_FALSE(OpenDcgm("http://nowhere:9400/metrics", Options(1), get).ok());
  EXPECT_GE(calls, 3);
}

// Two sim workers of one session, each exporting its own GPU (sim --gpus, --node-index).
std::string WorkerBody(int index, int node, double watts) {
  std::string uuid = fmt::format("GPU-5e000000-0000-4000-8000-{:06d}{:06d}", node, index);
  return fmt::format(
      "DCGM_FI_DEV_POWER_USAGE{{gpu=\"{0}\",UUID=\"{1}\"}} {2}\n"
      "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{{gpu=\"{0}\",UUID=\"{1}\"}} 1000\n"
      "servebench_sim_time_scale 1\nservebench_sim_power_average_s 1\n",
      index, uuid, watts);
}

TEST(DcgmEndpointsTest, EachGpuIsReadFromItsOwnEndpointAndASilentOneIsAGapForItsGpusOnly) {
  const std::string prefill = "http://127.0.0.1:7001/metrics",
                    decode = "http://127.0.0.1:7002/metrics";
  std::atomic<bool> decode_down{false};
  HttpGet get = [&](const std::string& url, double) -> StatusOr<std::string> {
    if (url == prefill) return WorkerBody(0, 0, 650);
    if (url == decode && !decode_down) return WorkerBody(0, 1, 240);
    return Status::Unavailable("connection refused");
  };
  StatusOr<std::unique_ptr<Sampler>> s = OpenDcgmEndpoints({prefill, decode}, Options(0.05), get);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ((*s)->gpus().size(), 2u);
  EXPECT_EQ((*s)->gpus()[0].key, "GPU-5e000000-0000-4000-8000-000000000000");
  EXPECT_EQ((*s)->gpus()[0].endpoint, prefill);
  EXPECT_EQ((*s)->gpus()[1].key, "GPU-5e000000-0000-4000-8000-000001000000");
  EXPECT_EQ((*s)->gpus()[1].endpoint, decode);
  EXPECT_EQ((*s)->gpus()[1].index, 0);
  EXPECT_NE((*s)->info().where.find(decode), std::string::npos);
  ASSERT_TRUE((*s)->Start().ok());
  ASSERT_TRUE((*s)->WaitForSamplesAfter(0, MonotonicNowNs() + 5'000'000'000));
  decode_down = true;
  int64_t down = MonotonicNowNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  SampleSet set = (*s)->Stop();
  size_t prefill_after = 0, decode_after = 0;
  for (const PowerSample& p : set.samples) {
    bool is_prefill = p.gpu == "GPU-5e000000-0000-4000-8000-000000000000";
    EXPECT_DOUBLE_EQ(*p.power_w, is_prefill ? 650 : 240) << p.gpu;
    // Samples stamped a period after the decode worker went silent.
    if (p.t_ns > down + 100'000'000) ++(is_prefill ? prefill_after : decode_after);
  }
  EXPECT_GT(prefill_after, 0u) << "the prefill worker kept being read";
  EXPECT_EQ(decode_after, 0u) << "the silent worker's GPU has a gap";
}

TEST(DcgmEndpointsTest, AGpuListedByTwoEndpointsOrOneSilentAtTheStartIsRefused) {
  HttpGet get = [&](const std::string& url, double) -> StatusOr<std::string> {
    if (url == "http://a/metrics" || url == "http://b/metrics") return WorkerBody(0, 0, 300);
    return Status::Unavailable("connection refused");
  };
  StatusOr<std::unique_ptr<Sampler>> twice =
      OpenDcgmEndpoints({"http://a/metrics", "http://b/metrics"}, Options(1), get);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find(
                "GPU GPU-5e000000-0000-4000-8000-000000000000 is listed by both http://a/metrics "
                "and http://b/metrics"),
            std::string::npos)
      << twice.status().message();
  StatusOr<std::unique_ptr<Sampler>> silent =
      OpenDcgmEndpoints({"http://a/metrics", "http://c/metrics"}, Options(1), get);
  ASSERT_FALSE(silent.ok());
  EXPECT_NE(silent.status().message().find("http://c/metrics: connection refused"),
            std::string::npos);
}

TelemetrySettings NothingThere() {
  TelemetrySettings t;
  t.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  t.amdsmi_library = "/nonexistent/libamd_smi.so";
  t.nvidia_smi = "/nonexistent/nvidia-smi";
  t.amd_smi = "/nonexistent/amd-smi";
  t.dcgm_urls = {"http://127.0.0.1:9/metrics"};
  return t;
}

HttpGet Refuse() {
  return [](const std::string&, double) -> StatusOr<std::string> {
    return Status::Unavailable("refused");
  };
}

TEST(OpenSamplerTest, AutoWithNothingThereIsNoneWithANote) {
  StatusOr<OpenedSampler> o = OpenSampler(NothingThere(), TimeAnchor::Now(), Refuse());
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->sampler, nullptr);
  EXPECT_NE(o->unavailable.find("no GPU telemetry source answered"), std::string::npos);
  EXPECT_NE(o->unavailable.find("nvml: /nonexistent/libnvidia-ml.so.1: cannot load"),
            std::string::npos);
  EXPECT_NE(o->unavailable.find("nvidia-smi:"), std::string::npos);
  EXPECT_NE(o->unavailable.find("dcgm:"), std::string::npos);
}

TEST(OpenSamplerTest, AutoReadsASessionsWorkersTogetherAfterTheRoutersEndpoint) {
  TelemetrySettings t = NothingThere();
  t.server_metrics_url = "http://router/metrics";  // a router: no GPU series
  t.session_workers = {{"prefill", "http://p/metrics", {0}}, {"decode", "http://d/metrics", {0}}};
  HttpGet get = [&](const std::string& url, double) -> StatusOr<std::string> {
    if (url == "http://router/metrics") return std::string("router_requests_total 3\n");
    if (url == "http://p/metrics") return WorkerBody(0, 0, 650);
    if (url == "http://d/metrics") return WorkerBody(0, 1, 240);
    return Status::Unavailable("connection refused");
  };
  StatusOr<OpenedSampler> o = OpenSampler(t, TimeAnchor::Now(), get);
  ASSERT_TRUE(o.ok() && o->sampler) << (o.ok() ? o->unavailable : o.status().ToString());
  EXPECT_EQ(o->sampler->info().source, "dcgm");
  EXPECT_EQ(o->sampler->gpus().size(), 2u);
  EXPECT_EQ(o->sampler->info().where, "http://p/metrics, http://d/metrics");
}

TEST(OpenSamplerTest, AutoTakesTheFirstThatWorks) {
  setenv("FAKE_NVML_POWER_MW", "300000", 1);
  TelemetrySettings t = NothingThere();
  t.nvidia_smi = kBin + "nvidia-smi";
  auto no_env = [](const char*) -> const char* { return nullptr; };
  StatusOr<OpenedSampler> smi = OpenSampler(t, TimeAnchor::Now(), Refuse(), no_env);
  ASSERT_TRUE(smi.ok() && smi->sampler);
  EXPECT_EQ(smi->sampler->info().source, "nvidia-smi");
  t.nvml_library = FAKE_NVML_LIBRARY;  // NVML comes before nvidia-smi
  StatusOr<OpenedSampler> nvml = OpenSampler(t, TimeAnchor::Now(), Refuse(), no_env);
  ASSERT_TRUE(nvml.ok() && nvml->sampler);
  EXPECT_EQ(nvml->sampler->info().source, "nvml");
}

TEST(OpenSamplerTest, ANamedSourceThatCannotOpenIsAnErrorAndNoneIsNone) {
  TelemetrySettings t = NothingThere();
  t.source = TelemetrySource::kNvml;
  StatusOr<OpenedSampler> o = OpenSampler(t, TimeAnchor::Now(), Refuse());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(o.status().message().find("--gpu-telemetry nvml: cannot be used here"),
            std::string::npos);
  t.source = TelemetrySource::kNone;
  StatusOr<OpenedSampler> none = OpenSampler(t, TimeAnchor::Now(), Refuse());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->sampler, nullptr);
}

TEST(OpenSamplerTest, CudaVisibleDevicesChoosesTheNvidiaGpus) {
  setenv("FAKE_NVML_POWER_MW", "100000,200000,300000,400000", 1);
  TelemetrySettings t = NothingThere();
  t.source = TelemetrySource::kNvml;
  t.nvml_library = FAKE_NVML_LIBRARY;
  auto env = [](const char* name) -> const char* {
    return std::string(name) == "CUDA_VISIBLE_DEVICES" ? "1,3" : nullptr;
  };
  StatusOr<OpenedSampler> o = OpenSampler(t, TimeAnchor::Now(), Refuse(), env);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ASSERT_EQ(o->sampler->gpus().size(), 2u);
  EXPECT_EQ(o->sampler->gpus()[1].index, 3);
  EXPECT_EQ(o->notes.front(), "GPU ids from CUDA_VISIBLE_DEVICES");
  GpuIdChoice amd = ChooseGpuIds(t, TelemetrySource::kAmdSmi, [](const char* name) -> const char* {
    return std::string(name) == "HIP_VISIBLE_DEVICES" ? "2" : nullptr;
  });
  EXPECT_EQ(amd.ids, std::vector<std::string>{"2"});
  EXPECT_EQ(amd.from, "HIP_VISIBLE_DEVICES");
}

TEST(OpenSamplerTest, TheEnginesVisibleDevicesComeBeforeTheClients) {
  setenv("FAKE_NVML_POWER_MW", "100000,200000,300000,400000", 1);
  TelemetrySettings t = NothingThere();
  t.source = TelemetrySource::kNvml;
  t.nvml_library = FAKE_NVML_LIBRARY;
  t.engine_env = {{"CUDA_VISIBLE_DEVICES", "0,2"}, {"OTHER", "x"}};
  auto env = [](const char* name) -> const char* {
    return std::string(name) == "CUDA_VISIBLE_DEVICES" ? "1,3" : nullptr;
  };
  StatusOr<OpenedSampler> o = OpenSampler(t, TimeAnchor::Now(), Refuse(), env);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  ASSERT_EQ(o->sampler->gpus().size(), 2u);
  EXPECT_EQ(o->sampler->gpus()[0].index, 0);
  EXPECT_EQ(o->sampler->gpus()[1].index, 2);
  EXPECT_EQ(o->notes.front(), "GPU ids from serve.env CUDA_VISIBLE_DEVICES");
  // --gpu-ids still wins; a GPU the engine names that is not there is an error.
  t.gpu_ids = {"3"};
  EXPECT_EQ(ChooseGpuIds(t, TelemetrySource::kNvml, env).from, "--gpu-ids");
  t.gpu_ids.clear();
  t.engine_env = {{"CUDA_VISIBLE_DEVICES", "7"}};
  EXPECT_FALSE(OpenSampler(t, TimeAnchor::Now(), Refuse(), env).ok());
}

TEST(OpenSamplerTest, SettingsAreValidatedFirst) {
  TelemetrySettings t;
  t.sample_period_s = 0;
  EXPECT_EQ(OpenSampler(t, TimeAnchor::Now(), Refuse()).status().code(),
            StatusCode::kInvalidArgument);
  t.sample_period_s = 1;
  t.gpu_ids = {"MIG-123"};
  EXPECT_NE(Validate(t).message().find("no power of its own"), std::string::npos);
  EXPECT_FALSE(ParseTelemetrySource("rocm-smi").ok());
  EXPECT_TRUE(RequirePowerFromEnv([](const char*) -> const char* { return "Yes"; }));
  EXPECT_FALSE(RequirePowerFromEnv([](const char*) -> const char* { return "0"; }));
}

}  // namespace
}  // namespace servebench::telemetry
