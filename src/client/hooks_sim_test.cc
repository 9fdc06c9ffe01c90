// --reset-prefix-cache and --profile against the real `servebench sim`: the reset
// makes a repeated run of the same prompts cold again, as the sim's own prefix-cache
// counters report it; the profile hooks wrap the measured phase and leave the sim's
// step trace; the result records each hook and its HTTP status.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "client/client.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {
namespace json = boost::json;
using sim::testing::Http;
using sim::testing::SimProcess;

BenchSettings Settings(const SimProcess& sim) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.num_prompts = 6;
  s.max_concurrency = 3;
  s.random_input_len = 64;
  s.random_output_len = 4;
  s.ignore_eos = true;
  s.seed = 5;  // the same prompts every run
  s.request_timeout_s = 20;
  s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  s.server_lag_limit_ms = 1e9;
  return s;
}

double PrefixHits(const SimProcess& sim) {
  const std::string page = Http(sim.port(), "GET", "/metrics").body;
  const std::string name = "\nvllm:prefix_cache_hits_total{";
  size_t at = page.find(name);
  if (at == std::string::npos) return -1;
  size_t value = page.find("} ", at) + 2;
  return std::stod(page.substr(value, page.find('\n', value) - value));
}

const json::object& Hooks(const BenchResult& r) {
  return r.result.at("servebench").at("hooks").as_object();
}

TEST(HooksSimTest, ResetPrefixCacheBetweenTwoRunsOfTheSamePromptsMakesTheSecondCold) {
  SimProcess sim({"--time-scale", "0", "--enable-prefix-caching"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  ASSERT_TRUE(RunBench(b).ok());
  const double after_first = PrefixHits(sim);
  auto warm = RunBench(b);  // no reset: the same prompts hit
  ASSERT_TRUE(warm.ok());
  const double after_warm = PrefixHits(sim);
  EXPECT_EQ(after_warm - after_first, 6 * 48) << "each 64-token prompt reuses 3 blocks";
  EXPECT_TRUE(Hooks(*warm).at("reset_prefix_cache").is_null()) << "not asked";

  b.reset_prefix_cache = true;
  auto cold = RunBench(b);
  ASSERT_TRUE(cold.ok()) << cold.status().ToString();
  EXPECT_EQ(PrefixHits(sim), after_warm) << "the reset before the measured phase: every miss";
  const json::object& reset = Hooks(*cold).at("reset_prefix_cache").as_object();
  EXPECT_EQ(reset.at("endpoint").as_string(), "/reset_prefix_cache");
  EXPECT_EQ(reset.at("http_status").as_int64(), 200);
  EXPECT_TRUE(reset.at("ok").as_bool());
  EXPECT_EQ(cold->summary.completed, 6);
}

TEST(HooksSimTest, ProfileWrapsTheMeasuredPhaseAndLeavesTheSimsStepTrace) {
  std::string dir = (std::filesystem::temp_directory_path() / "bench-profile-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  SimProcess sim({"--time-scale", "0", "--profile-dir", dir});
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings b = Settings(sim);
  b.num_warmups = 2;  // outside the profile
  b.profile = true;
  auto r = RunBench(b);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const json::object& hooks = Hooks(*r);
  EXPECT_EQ(hooks.at("start_profile").at("http_status").as_int64(), 200);
  const json::object& stop = hooks.at("stop_profile").as_object();
  ASSERT_EQ(stop.at("http_status").as_int64(), 200);
  const std::string trace(stop.at("trace").as_string());
  EXPECT_EQ(std::filesystem::path(trace).parent_path(), std::filesystem::path(dir));
  std::ifstream in(trace);
  std::stringstream text;
  text << in.rdbuf();
  const json::array events = json::parse(text.str()).at("traceEvents").as_array();
  int64_t prefill_tokens = 0;
  for (const json::value& e : events) {
    prefill_tokens += e.at("args").at("prefill_tokens").as_int64();
  }
  EXPECT_EQ(prefill_tokens, 6 * 64) << "the measured prompts' prefill, not the warm-ups'";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace servebench::client
