#include "metrics/scrape_series.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "common/testing/files.h"

namespace servebench::metrics {
namespace {

PromSample Sample(std::string name, double value, std::map<std::string, std::string> labels = {}) {
  return PromSample{std::move(name), std::move(labels), value};
}

TEST(ScrapeSeriesTest, HistogramBucketsAreLeftOutAndTheirSumAndCountKept) {
  TimedScrape t =
      ScrapeOf(5, {Sample("vllm:kv_cache_usage_perc", 0.5),
                   Sample("vllm:ttft_seconds_bucket", 3, {{"le", "0.1"}}),
                   Sample("vllm:ttft_seconds_sum", 1), Sample("vllm:ttft_seconds_count", 3),
                   Sample("vllm:ttft_seconds_created", 1e9),
                   // A summary's parts: no buckets of their family.
                   Sample("rpc_latency_sum", 2), Sample("rpc_latency_count", 4),
                   Sample("vllm:prompt_tokens_total", 100)});
  ASSERT_EQ(t.samples.size(), 4u);
  EXPECT_EQ(t.samples[0].name, "vllm:kv_cache_usage_perc");
  EXPECT_EQ(t.samples[1].name, "vllm:ttft_seconds_sum");
  EXPECT_EQ(t.samples[2].name, "vllm:ttft_seconds_count");
  EXPECT_EQ(t.samples[3].name, "vllm:prompt_tokens_total");
}

TEST(ScrapeSeriesTest, KvUsageIsTheLargestSeriesOfEachEnginesGauge) {
  KvUsage v = KvUsageOf({Sample("vllm:kv_cache_usage_perc", 0.25, {{"engine", "0"}}),
                         Sample("vllm:kv_cache_usage_perc", 0.75, {{"engine", "1"}}),
                         Sample("vllm:cpu_kv_cache_usage_perc", 0.1)});
  EXPECT_EQ(v.source, "vllm");
  EXPECT_DOUBLE_EQ(*v.gpu, 0.75);
  EXPECT_DOUBLE_EQ(*v.cpu, 0.1);
  // Older vLLM's name, exported in percent: read as a fraction.
  KvUsage old = KvUsageOf({Sample("vllm:gpu_cache_usage_perc", 40)});
  EXPECT_DOUBLE_EQ(*old.gpu, 0.4);
  EXPECT_FALSE(old.cpu);
  KvUsage sglang =
      KvUsageOf({Sample("sglang:token_usage", 0.5), Sample("sglang:hicache_host_used_tokens", 25),
                 Sample("sglang:hicache_host_total_tokens", 100)});
  EXPECT_EQ(sglang.source, "sglang");
  EXPECT_DOUBLE_EQ(*sglang.cpu, 0.25);
  KvUsage llama = KvUsageOf({Sample("llamacpp:kv_cache_usage_ratio", 0.125)});
  EXPECT_EQ(llama.source, "llamacpp");
  EXPECT_DOUBLE_EQ(*llama.gpu, 0.125);
  EXPECT_EQ(KvUsageOf({Sample("vllm:num_requests_running", 3)}).source, "");
}

TEST(ScrapeSeriesTest, TheStatisticsAreOverTheScrapesThatHadTheGauge) {
  std::vector<TimedScrape> scrapes;
  for (int i = 0; i <= 10; ++i)
    scrapes.push_back(ScrapeOf(i, {Sample("vllm:kv_cache_usage_perc", i / 10.0)}));
  scrapes.push_back(ScrapeOf(11, {Sample("vllm:num_requests_running", 1)}));
  const boost::json::object o = KvUsageJson(scrapes, 1.0);
  EXPECT_EQ(o.at("scrapes").to_number<int>(), 12);
  EXPECT_EQ(o.at("source").as_string(), "vllm");
  const boost::json::object& gpu = o.at("gpu").as_object();
  EXPECT_EQ(gpu.at("samples").to_number<int>(), 11);
  EXPECT_NEAR(gpu.at("mean").as_double(), 0.5, 1e-12);
  EXPECT_NEAR(gpu.at("max").as_double(), 1.0, 1e-12);
  EXPECT_NEAR(gpu.at("p50").as_double(), 0.5, 1e-12);
  EXPECT_NEAR(gpu.at("p90").as_double(), 0.9, 1e-12);
  EXPECT_NEAR(gpu.at("p99").as_double(), 0.99, 1e-12);
  EXPECT_TRUE(o.at("cpu").is_null());
}

TEST(ScrapeSeriesTest, TheSeriesFileReadsBackAsWritten) {
  std::vector<TimedScrape> scrapes = {
      ScrapeOf(1000, {Sample("vllm:kv_cache_usage_perc", 0.5, {{"engine", "0"}}),
                      Sample("vllm:prefix_cache_hits_total", 64)}),
      ScrapeOf(2000, {Sample("vllm:kv_cache_usage_perc", 0.25, {{"engine", "0"}})})};
  const std::string text = ScrapesToJsonl(scrapes);
  const boost::json::value first = boost::json::parse(text.substr(0, text.find('\n')));
  EXPECT_DOUBLE_EQ(first.at("kv_usage").at("gpu").as_double(), 0.5);
  EXPECT_TRUE(first.at("kv_usage").at("cpu").is_null());
  const std::string path = servebench::testing::FreshTestDir("scrapes") + "/series.jsonl";
  std::ofstream(path) << text;
  auto back = ReadScrapesJsonl(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].unix_ns, 2000);
  EXPECT_EQ((*back)[0].samples[0].labels.at("engine"), "0");
  EXPECT_DOUBLE_EQ((*back)[0].samples[1].value, 64);
}

TEST(ScrapeSeriesTest, AMalformedLineIsAnErrorWithItsPlace) {
  const std::string path = servebench::testing::FreshTestDir("scrapes") + "/bad.jsonl";
  std::ofstream(path)
      << "{\"unix_ns\": 1, \"samples\": []}\n{\"unix_ns\": \"x\", \"samples\": []}\n";
  auto back = ReadScrapesJsonl(path);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find(path + ":2: unix_ns"), std::string::npos)
      << back.status().ToString();
}

}  // namespace
}  // namespace servebench::metrics
