// Integration tests of the sim's hooks around a measured window, through real HTTP:
// POST /reset_prefix_cache empties the prefix cache (its counters keep counting),
// POST /start_profile and /stop_profile write a Chrome trace of the engine's steps
// into the profile directory, and answer 404 without one, as vLLM's do.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/testing/sim_process.h"

namespace servebench::sim {
namespace {
namespace json = boost::json;
using testing::Http;
using testing::HttpResponse;
using testing::SimProcess;

// The value of the first sample of `name` in a Prometheus text page; -1 when absent.
double Sample(const std::string& page, const std::string& name) {
  size_t at = page.find("\n" + name + "{");
  if (at == std::string::npos) return -1;
  size_t close = page.find("} ", at);
  return std::stod(page.substr(close + 2, page.find('\n', close) - close - 2));
}

// A 64-token prompt (four 16-token blocks) as token ids.
std::string PromptBody(int first_id) {
  std::string ids;
  for (int i = 0; i < 64; ++i) ids += (i ? "," : "") + std::to_string(first_id + i);
  return R"({"prompt":[)" + ids + R"(],"max_tokens":2,"ignore_eos":true})";
}

std::string TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "sim-hooks-XXXXXX").string();
  EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

TEST(SimHooksTest, ResetPrefixCacheTurnsARepeatedPromptBackIntoAMiss) {
  SimProcess sim({"--time-scale", "0", "--enable-prefix-caching"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  auto hits = [&] {
    return Sample(Http(sim.port(), "GET", "/metrics").body, "vllm:prefix_cache_hits_total");
  };
  ASSERT_EQ(Http(sim.port(), "POST", "/v1/completions", PromptBody(1000)).status, 200);
  const double cold = hits();
  ASSERT_EQ(Http(sim.port(), "POST", "/v1/completions", PromptBody(1000)).status, 200);
  const double warm = hits();
  EXPECT_EQ(warm - cold, 48) << "the repeat reuses three whole blocks (never the last token's)";

  HttpResponse reset = Http(sim.port(), "POST", "/reset_prefix_cache");
  EXPECT_EQ(reset.status, 200) << reset.body;
  ASSERT_EQ(Http(sim.port(), "POST", "/v1/completions", PromptBody(1000)).status, 200);
  EXPECT_EQ(hits(), warm) << "after the reset the same prompt misses; the counter keeps its count";
  ASSERT_EQ(Http(sim.port(), "POST", "/v1/completions", PromptBody(1000)).status, 200);
  EXPECT_EQ(hits() - warm, 48) << "and is cached again from then on";
  EXPECT_EQ(Http(sim.port(), "GET", "/reset_prefix_cache").status, 405);
}

TEST(SimHooksTest, ProfileWritesAChromeTraceOfTheStepsRunWhileProfiling) {
  const std::string dir = TempDir() + "/profiles";  // created by the sim
  SimProcess sim({"--time-scale", "0", "--profile-dir", dir});
  ASSERT_TRUE(sim.ready()) << sim.output();
  ASSERT_EQ(Http(sim.port(), "POST", "/v1/completions", PromptBody(1)).status, 200);  // not kept
  ASSERT_EQ(Http(sim.port(), "POST", "/start_profile").status, 200);
  EXPECT_EQ(Http(sim.port(), "POST", "/start_profile").status, 400) << "already running";
  ASSERT_EQ(Http(sim.port(), "POST", "/v1/completions", PromptBody(500)).status, 200);
  HttpResponse stop = Http(sim.port(), "POST", "/stop_profile");
  ASSERT_EQ(stop.status, 200) << stop.body;
  EXPECT_EQ(Http(sim.port(), "POST", "/stop_profile").status, 400) << "nothing running";

  const std::string path(json::parse(stop.body).at("trace").as_string());
  EXPECT_EQ(std::filesystem::path(path).parent_path(), std::filesystem::path(dir));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const json::array events = json::parse(text.str()).at("traceEvents").as_array();
  // One request of 64 prompt tokens and 2 outputs: one prefill step (which samples the
  // first token), then one decode step.
  ASSERT_EQ(events.size(), 2u) << text.str();
  const json::object& prefill = events[0].as_object();
  EXPECT_EQ(prefill.at("name").as_string(), "prefill");
  EXPECT_EQ(prefill.at("ph").as_string(), "X");
  EXPECT_EQ(prefill.at("args").at("prefill_tokens").as_int64(), 64);
  EXPECT_EQ(prefill.at("args").at("batch_size").as_int64(), 1);
  const json::object& decode = events[1].as_object();
  EXPECT_EQ(decode.at("name").as_string(), "decode");
  EXPECT_EQ(decode.at("args").at("decode_seqs").as_int64(), 1);
  EXPECT_GT(decode.at("dur").to_number<double>(), 0);
  EXPECT_GE(decode.at("ts").to_number<double>(),
            prefill.at("ts").to_number<double>() + prefill.at("dur").to_number<double>() - 1e-3)
      << "steps follow each other in simulated time";
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

TEST(SimHooksTest, ProfileEndpointsAre404WithoutAProfileDir) {
  SimProcess sim({"--time-scale", "0"});
  ASSERT_TRUE(sim.ready()) << sim.output();
  EXPECT_EQ(Http(sim.port(), "POST", "/start_profile").status, 404);
  EXPECT_EQ(Http(sim.port(), "POST", "/stop_profile").status, 404);
}

}  // namespace
}  // namespace servebench::sim
