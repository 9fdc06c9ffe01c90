// Prefix pools against the real `servebench sim` with its prefix cache on, over loopback:
// the pool's reuse as the sim's own counters report it (vllm:prefix_cache_hits_total /
// _queries_total, scraped around the measured phase) equals the configured ratio.
//
// The tolerance comes from block rounding alone. The engine caches whole blocks of
// --block-size B tokens, so a pool prompt of L tokens whose prefix has P tokens hits
// floor(P / B) x B of them, not P: the token hit rate sits below reuse x P / L by
// reuse x (P mod B) / L at most, and the client's block-rounded expectation is exact
// (token ids: the sim counts exactly what was sent). The share of requests served from
// the pool (server hit tokens over the hits of one pool prompt) is the configured ratio
// up to the rounding of round(reuse x N) prompts, 1 / (2N). Chat text adds the template's
// tokens before the prefix, which moves the boundary by under one block a pool prompt.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>

#include "client/client.h"
#include "client/prefix_pool.h"
#include "sim/testing/sim_process.h"

namespace servebench::client {
namespace {

using sim::testing::SimProcess;

constexpr int64_t kBlock = 16, kPrefix = 100, kSuffix = 60, kPrompts = 40;

BenchSettings Pool(const SimProcess& sim, double reuse) {
  BenchSettings s;
  s.base_url = sim.base_url();
  s.model = "meta-llama/Llama-3.1-8B-Instruct";
  s.dataset_name = std::string(kPrefixPoolDataset);
  s.prefix_pool.prefix_len = kPrefix;  // 6 whole blocks and 4 tokens: rounding shows
  s.prefix_pool.suffix_len = kSuffix;
  s.prefix_pool.num_prefixes = 4;
  s.prefix_pool.output_len = 8;
  s.prefix_pool.reuse_ratio = reuse;
  s.num_prompts = kPrompts;
  // Eight in flight: prompts of one group overlap, so only the primers make the first
  // of each group a hit.
  s.max_concurrency = 8;
  s.engine_block_tokens = kBlock;
  s.ignore_eos = true;
  s.request_timeout_s = 30;
  s.progress = false;
  s.client_issue_delay_limit_ms = 1e9;  // shared CI cores: not under test here
  s.server_lag_limit_ms = 1e9;          // ... nor the sim's lateness at time scale 0.01
  return s;
}

const boost::json::object& PrefixCache(const BenchResult& r) {
  return r.result.at("servebench").at("prefix_cache").as_object();
}

double Num(const boost::json::object& o, std::string_view a, std::string_view b) {
  return o.at(a).at(b).to_number<double>();
}

std::vector<std::string> SimArgs() {
  return {"--enable-prefix-caching", "--block-size", std::to_string(kBlock), "--time-scale",
          "0.01"};
}

TEST(PrefixPoolSimTest, PoolReuseByTheSimsCountersIsTheConfiguredRatio) {
  SimProcess sim(SimArgs());
  ASSERT_TRUE(sim.ready()) << sim.output();
  const double reuse = 0.75;
  auto r = RunBench(Pool(sim, reuse));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, kPrompts);
  EXPECT_TRUE(r->summary.validity.valid())
      << boost::json::serialize(r->result.at("servebench").at("validity"));
  const boost::json::object& pc = PrefixCache(*r);
  ASSERT_TRUE(pc.at("server").is_object()) << boost::json::serialize(pc);
  EXPECT_EQ(pc.at("pool").at("group_sizes").as_array(), (boost::json::array{8, 8, 7, 7}));
  EXPECT_EQ(pc.at("pool").at("primers").as_int64(), 4);

  // Requests served from the pool, by the counters: 30 of 40, the configured 0.75.
  EXPECT_NEAR(Num(pc, "server", "pool_reuse"), reuse, 1.0 / (2 * kPrompts));
  EXPECT_NEAR(Num(pc, "server", "pool_reuse"), Num(pc, "expected", "pool_reuse"), 1e-6);
  // Tokens: 30 pool prompts x 96 cached tokens of 40 x 160 = 0.45, what the sim counted.
  const double server = Num(pc, "server", "hit_rate");
  EXPECT_NEAR(Num(pc, "expected", "token_fraction_infinite"), 30.0 * 96 / (40.0 * 160), 1e-6);
  EXPECT_NEAR(server, Num(pc, "expected", "token_fraction_infinite"), 1e-6);
  // Against the configured ratio in tokens, reuse x P / L: block rounding only.
  const double configured = reuse * kPrefix / (kPrefix + kSuffix);
  EXPECT_LE(server, configured);
  EXPECT_GE(server, configured - reuse * (kPrefix % kBlock) / double(kPrefix + kSuffix));
}

TEST(PrefixPoolSimTest, WithoutReuseNothingHitsAndWithoutACacheTheRunIsInvalid) {
  SimProcess sim(SimArgs());
  ASSERT_TRUE(sim.ready()) << sim.output();
  auto none = RunBench(Pool(sim, 0.0));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(PrefixCache(*none).at("pool").at("primers").as_int64(), 0);
  EXPECT_NEAR(Num(PrefixCache(*none), "server", "hit_rate"), 0.0, 1e-9);
  EXPECT_TRUE(none->summary.validity.valid());

  // An engine without prefix caching looks nothing up: it hits 0 where the pool should
  // give 0.45, and the run says so rather than reporting numbers of another workload.
  SimProcess plain({"--time-scale", "0.01"});
  ASSERT_TRUE(plain.ready()) << plain.output();
  auto r = RunBench(Pool(plain, 0.75));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.validity.reason_codes(), (std::vector<std::string>{"prefix_hits_disagree"}));
}

TEST(PrefixPoolSimTest, ChatTextPoolsHitWithinOneBlockAPoolPrompt) {
  SimProcess sim(SimArgs());
  ASSERT_TRUE(sim.ready()) << sim.output();
  BenchSettings s = Pool(sim, 0.75);
  s.backend = "openai-chat";
  s.prefix_hit_tolerance = 0.1;
  auto r = RunBench(s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->summary.completed, kPrompts);
  const boost::json::object& pc = PrefixCache(*r);
  ASSERT_TRUE(pc.at("server").is_object()) << boost::json::serialize(pc);
  EXPECT_FALSE(pc.at("expected").at("exact").as_bool());
  // Prompts are fitted to exactly P + S tokens by the sim's /tokenize; the template adds
  // a few more, so L >= P + S and one block a pool prompt is at most reuse x B / (P + S).
  EXPECT_NEAR(Num(pc, "server", "hit_rate"), Num(pc, "expected", "token_fraction_infinite"),
              0.75 * kBlock / double(kPrefix + kSuffix));
  EXPECT_GT(Num(pc, "server", "hit_rate"), 0.3);
}

}  // namespace
}  // namespace servebench::client
