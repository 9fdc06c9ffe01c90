// The hooks' warning path: against a server without the admin endpoints (the fake
// server answers 404) or with nothing listening, --reset-prefix-cache and --profile
// never fail the run; the result records each hook's HTTP status (or none).
#include "client/server_hooks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "client/client.h"
#include "net/testing/fake_openai_server.h"
#include "net/url.h"

namespace servebench::client {
namespace {

using net::testing::FakeOpenAiServer;

TEST(ServerHooksTest, ServerWithoutTheEndpointsGivesWarningsAndACompleteRun) {
  FakeOpenAiServer server;
  BenchSettings s;
  s.base_url = server.base_url();
  s.model = "fake";
  s.num_prompts = 4;
  s.max_concurrency = 2;
  s.random_input_len = 16;
  s.random_output_len = 4;
  s.ignore_eos = true;
  s.request_timeout_s = 10;
  s.client_issue_delay_limit_ms = 1e9;  // CI machines are shared; not under test here
  s.server_lag_limit_ms = 1e9;
  s.reset_prefix_cache = true;
  s.profile = true;
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, 4);
  const auto& hooks = r->result.at("servebench").at("hooks").as_object();
  for (const char* hook : {"reset_prefix_cache", "start_profile", "stop_profile"}) {
    const auto& h = hooks.at(hook).as_object();
    EXPECT_EQ(h.at("http_status").as_int64(), 404) << hook;
    EXPECT_FALSE(h.at("ok").as_bool()) << hook;
    EXPECT_NE(std::string(h.at("error").as_string()).find("HTTP 404"), std::string::npos);
  }
}

TEST(ServerHooksTest, ResetFallsBackToSglangsFlushCacheWhenTheVllmRouteIs404) {
  net::testing::FakeServerOptions options;
  options.admin_endpoints = {"/flush_cache"};  // SGLang's name
  FakeOpenAiServer server(options);
  auto url = net::ParseUrl(server.base_url());
  ASSERT_TRUE(url.ok());
  HookOutcome o = ResetPrefixCache(*url, {});
  EXPECT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.endpoint, "/flush_cache");
  EXPECT_EQ(o.http_status, 200);

  FakeOpenAiServer neither;
  auto bare = net::ParseUrl(neither.base_url());
  ASSERT_TRUE(bare.ok());
  HookOutcome none = ResetPrefixCache(*bare, {});
  EXPECT_FALSE(none.ok);
  EXPECT_EQ(none.endpoint, "/reset_prefix_cache") << "the first call's outcome";
  EXPECT_EQ(none.http_status, 404);
}

TEST(ServerHooksTest, NothingListeningIsAnOutcomeWithoutAStatus) {
  auto url = net::ParseUrl("http://127.0.0.1:1");
  ASSERT_TRUE(url.ok());
  HookOutcome o = CallHook(*url, "/reset_prefix_cache", "--reset-prefix-cache", 2.0, {});
  EXPECT_FALSE(o.http_status.has_value());
  EXPECT_FALSE(o.ok);
  EXPECT_NE(o.error.find("no reply"), std::string::npos) << o.error;
  boost::json::value j = HookJson(o);
  EXPECT_TRUE(j.at("http_status").is_null());
}

// A session of several processes: every process's own endpoint is called, and one
// warning names each process that lacks it (here decode[1], answering 404) and no other.
TEST(ServerHooksTest, ProfilingEveryProcessWarnsOnceNamingEachProcessWithoutTheEndpoint) {
  net::testing::FakeServerOptions profiled;
  profiled.admin_endpoints = {"/start_profile", "/stop_profile"};
  FakeOpenAiServer prefill(profiled), decode0(profiled), decode1;  // decode1: 404
  const std::vector<EngineProcess> processes = {{"prefill[0]", prefill.base_url()},
                                                {"decode[0]", decode0.base_url()},
                                                {"decode[1]", decode1.base_url()}};
  ::testing::internal::CaptureStderr();
  std::vector<HookOutcome> out = CallHookOnEach(processes, "/start_profile", "--profile", 5.0, {});
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].process, "prefill[0]");
  EXPECT_TRUE(out[0].ok) << out[0].error;
  EXPECT_TRUE(out[1].ok) << out[1].error;
  EXPECT_FALSE(out[2].ok);
  EXPECT_EQ(out[2].http_status, 404);
  EXPECT_EQ(HookJson(out[2]).at("process").as_string(), "decode[1]");
  // One warning line, naming decode[1] with its URL, and not the processes that answered.
  EXPECT_EQ(std::count(warnings.begin(), warnings.end(), '\n'), 1) << warnings;
  EXPECT_NE(warnings.find("--profile: POST /start_profile failed on decode[1] (" +
                          decode1.base_url() + "/start_profile: HTTP 404"),
            std::string::npos)
      << warnings;
  EXPECT_EQ(warnings.find("prefill[0]"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("decode[0]"), std::string::npos) << warnings;
}

// --reset-prefix-cache on a session of several processes: each worker is reset at its
// own URL (with SGLang's fallback there), and one warning names each worker that has
// neither endpoint.
TEST(ServerHooksTest, ResettingEveryProcessWarnsOnceNamingEachProcessWithoutTheEndpoint) {
  net::testing::FakeServerOptions vllm, sglang;
  vllm.admin_endpoints = {"/reset_prefix_cache"};
  sglang.admin_endpoints = {"/flush_cache"};
  FakeOpenAiServer prefill(vllm), decode0(sglang), decode1;  // decode1: neither
  const std::vector<EngineProcess> processes = {{"prefill[0]", prefill.base_url()},
                                                {"decode[0]", decode0.base_url()},
                                                {"decode[1]", decode1.base_url()}};
  ::testing::internal::CaptureStderr();
  std::vector<HookOutcome> out = ResetPrefixCacheOnEach(processes, {});
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].ok) << out[0].error;
  EXPECT_EQ(out[0].endpoint, "/reset_prefix_cache");
  EXPECT_TRUE(out[1].ok) << out[1].error;
  EXPECT_EQ(out[1].endpoint, "/flush_cache");
  EXPECT_FALSE(out[2].ok);
  EXPECT_EQ(out[2].process, "decode[1]");
  EXPECT_EQ(out[2].http_status, 404);
  EXPECT_EQ(std::count(warnings.begin(), warnings.end(), '\n'), 1) << warnings;
  EXPECT_NE(warnings.find("--reset-prefix-cache: POST /reset_prefix_cache failed on decode[1] (" +
                          decode1.base_url() + "/reset_prefix_cache: HTTP 404"),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("/flush_cache (SGLang's) HTTP 404"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("prefill[0]"), std::string::npos) << warnings;
  EXPECT_EQ(warnings.find("decode[0]"), std::string::npos) << warnings;
}

}  // namespace
}  // namespace servebench::client
