// The prefix pool's prompt layout (shared prefixes are identical token ids, lengths
// exact, group sizes as configured, primers and warm-ups in their places), its
// validation, and the expected-reuse arithmetic of its report.
#include "client/prefix_pool.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace servebench::client {
namespace {

BenchSettings Pool(int64_t prompts, int64_t prefixes, double reuse) {
  BenchSettings s;
  s.model = "m";
  s.dataset_name = std::string(kPrefixPoolDataset);
  s.num_prompts = prompts;
  s.num_warmups = 2;
  s.prefix_pool.prefix_len = 20;
  s.prefix_pool.suffix_len = 12;
  s.prefix_pool.num_prefixes = prefixes;
  s.prefix_pool.output_len = 7;
  s.prefix_pool.reuse_ratio = reuse;
  return s;
}

std::vector<int32_t> Head(const Prompt& p, size_t n) {
  return std::vector<int32_t>(p.token_ids.begin(), p.token_ids.begin() + static_cast<long>(n));
}

TEST(PrefixPoolTest, PromptsOfAGroupShareIdenticalPrefixIdsAndEveryLengthIsExact) {
  auto set = MakePrompts(Pool(20, 3, 0.75), /*chat=*/false, {});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_EQ(set->measured.size(), 20u);
  std::map<int, std::vector<int32_t>> prefix_of_group;
  std::map<int, int> group_size;
  std::set<std::vector<int32_t>> own_prefixes, suffixes;
  for (const Prompt& p : set->measured) {
    ASSERT_EQ(p.token_ids.size(), 32u);
    EXPECT_EQ(p.prompt_tokens, 32);
    EXPECT_TRUE(p.prompt_tokens_exact);
    EXPECT_EQ(p.prefix_tokens, 20);
    EXPECT_EQ(p.max_tokens, 7);
    suffixes.insert(std::vector<int32_t>(p.token_ids.begin() + 20, p.token_ids.end()));
    if (p.prefix_group < 0) {
      own_prefixes.insert(Head(p, 20));
      continue;
    }
    ++group_size[p.prefix_group];
    auto [it, first] = prefix_of_group.emplace(p.prefix_group, Head(p, 20));
    if (!first) {
      EXPECT_EQ(it->second, Head(p, 20)) << "group " << p.prefix_group;
    }
  }
  // round(0.75 x 20) = 15 prompts over 3 prefixes, 5 each; 5 have prefixes of their own.
  EXPECT_EQ(group_size, (std::map<int, int>{{0, 5}, {1, 5}, {2, 5}}));
  EXPECT_EQ(own_prefixes.size(), 5u);
  EXPECT_EQ(suffixes.size(), 20u);  // every suffix is fresh: no two prompts are equal
  std::set<std::vector<int32_t>> pool;
  for (const auto& [group, ids] : prefix_of_group) pool.insert(ids);
  EXPECT_EQ(pool.size(), 3u);
  for (const auto& own : own_prefixes) EXPECT_EQ(pool.count(own), 0u);

  // One primer per pool prefix, one token each; warm-ups never carry a pool prefix.
  ASSERT_EQ(set->primers.size(), 3u);
  for (const Prompt& p : set->primers) {
    EXPECT_EQ(Head(p, 20), prefix_of_group.at(p.prefix_group));
    EXPECT_EQ(p.max_tokens, 1);
    EXPECT_EQ(suffixes.count(std::vector<int32_t>(p.token_ids.begin() + 20, p.token_ids.end())),
              0u);
  }
  ASSERT_EQ(set->warmups.size(), 2u);
  for (const Prompt& p : set->warmups) {
    EXPECT_EQ(p.prefix_group, -1);
    EXPECT_EQ(pool.count(Head(p, 20)), 0u);
  }
}

TEST(PrefixPoolTest, GroupSizesDifferByOneAtMostAndTheSeedMovesOnlyTheOrder) {
  PrefixPoolSettings pool;
  pool.num_prefixes = 4;
  std::mt19937_64 a(7), b(7), c(8);
  const std::vector<int> layout = LayOutPrefixPool(pool, 30, a);
  EXPECT_EQ(layout, LayOutPrefixPool(pool, 30, b));
  const std::vector<int> other = LayOutPrefixPool(pool, 30, c);
  EXPECT_NE(layout, other);
  for (const std::vector<int>& l : {layout, other}) {
    std::map<int, int> size;
    for (int g : l) ++size[g];
    EXPECT_EQ(size, (std::map<int, int>{{0, 8}, {1, 8}, {2, 7}, {3, 7}}));
  }
  auto x = MakePrompts(Pool(20, 3, 0.75), false, {});
  auto y = MakePrompts(Pool(20, 3, 0.75), false, {});
  ASSERT_TRUE(x.ok() && y.ok());
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(x->measured[i].token_ids, y->measured[i].token_ids);
}

TEST(PrefixPoolTest, ChatPromptsShareThePrefixTextFittedToTheServersCount) {
  // A fake tokenizer: two tokens per word.
  TokenCounter count = [](const std::string& text) -> std::optional<int64_t> {
    int64_t words = text.empty() ? 0 : 1;
    for (char c : text) words += c == ' ';
    return words * 2;
  };
  auto set = MakePrompts(Pool(12, 2, 1.0), /*chat=*/true, count);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  std::map<int, std::string> text_of_group;
  for (const Prompt& p : set->measured) {
    EXPECT_TRUE(p.token_ids.empty());
    ASSERT_GE(p.prefix_group, 0);
    EXPECT_EQ(p.prefix_tokens, 20);
    EXPECT_EQ(p.prompt_tokens, 32);  // "prefix suffix" counted whole
    EXPECT_TRUE(p.prompt_tokens_exact);
    auto [it, first] = text_of_group.emplace(p.prefix_group, p.prefix_text);
    if (!first) {
      EXPECT_EQ(it->second, p.prefix_text);
    }
  }
  EXPECT_EQ(text_of_group.size(), 2u);
  EXPECT_NE(text_of_group[0], text_of_group[1]);
}

TEST(PrefixPoolTest, ReuseZeroIsTheSameLengthsWithoutPoolOrPrimers) {
  auto set = MakePrompts(Pool(10, 3, 0.0), false, {});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_TRUE(set->primers.empty());
  for (const Prompt& p : set->measured) {
    EXPECT_EQ(p.prefix_group, -1);
    EXPECT_EQ(p.token_ids.size(), 32u);
  }
}

TEST(PrefixPoolTest, BadCombinationsAreRefusedNamingTheFlag) {
  auto message = [](const BenchSettings& s) { return Validate(s).message(); };
  EXPECT_TRUE(Validate(Pool(20, 3, 0.75)).ok()) << message(Pool(20, 3, 0.75));
  BenchSettings s = Pool(20, 3, 0.75);
  s.prefix_pool.suffix_len = 0;
  EXPECT_NE(message(s).find("--prefix-repetition-suffix-len 0"), std::string::npos) << message(s);
  s = Pool(20, 3, 1.5);
  EXPECT_NE(message(s).find("--prefix-repetition-reuse-ratio 1.5"), std::string::npos);
  s = Pool(20, 3, 0.1);  // round(0.1 x 20) = 2 prompts for 3 prefixes
  EXPECT_NE(message(s).find("--prefix-repetition-num-prefixes 3"), std::string::npos);
  s = Pool(20, 0, 1);
  EXPECT_NE(message(s).find("--prefix-repetition-num-prefixes 0"), std::string::npos);
  s = Pool(20, 3, 1);
  s.prefix_pool.prefix_len = 0;
  EXPECT_NE(message(s).find("--prefix-repetition-prefix-len 0"), std::string::npos);
  s = Pool(20, 3, 1);
  s.random_prefix_len = 8;
  EXPECT_NE(message(s).find("--random-prefix-len 8"), std::string::npos);
  s = Pool(20, 3, 1);
  s.random_range_ratio = 0.5;
  EXPECT_NE(message(s).find("--random-range-ratio"), std::string::npos);
  s = Pool(20, 3, 1);
  s.prefix_pool.output_len = 0;
  EXPECT_NE(message(s).find("--prefix-repetition-output-len 0"), std::string::npos);
}

// A measured request of `prompt_tokens` (the server's usage) that completed.
metrics::RequestRecord Done(int64_t index, int64_t prompt_tokens, bool warmup = false) {
  metrics::RequestRecord r;
  r.index = index;
  r.warmup = warmup;
  r.usage_prompt_tokens = prompt_tokens;
  return r;
}

TEST(PrefixPoolTest, ReportCountsWholeBlocksOfThePrefixAndTheServersPoolReuse) {
  BenchSettings s = Pool(4, 1, 0.75);
  s.prefix_pool.prefix_len = 40;
  s.engine_block_tokens = 16;
  // Three pool prompts (prefix 40 tokens: 2 whole blocks = 32 hit tokens each), one of its
  // own; 60 prompt tokens each. A primer record is skipped.
  std::vector<PoolPromptInfo> prompts = {{0, 40}, {-1, 40}, {0, 40}, {0, 40}};
  std::vector<metrics::RequestRecord> records = {Done(0, 60, true), Done(0, 60), Done(1, 60),
                                                 Done(2, 60), Done(3, 60)};
  PrefixCacheSide server;
  server.before.source = server.after.source = "vllm";
  server.after.queried_tokens = 240;
  server.after.hit_tokens = 96;
  metrics::Validity validity;
  boost::json::object o =
      PrefixPoolReport(s, prompts, /*chat=*/false, 1, records, server, &validity);
  const boost::json::object& e = o.at("expected").as_object();
  EXPECT_EQ(e.at("requests").as_int64(), 4);
  EXPECT_EQ(e.at("pool_requests").as_int64(), 3);
  EXPECT_EQ(e.at("hit_tokens").as_int64(), 96);
  EXPECT_DOUBLE_EQ(e.at("pool_reuse").as_double(), 0.75);
  EXPECT_DOUBLE_EQ(e.at("token_fraction_infinite").as_double(), 0.4);   // 96 / 240
  EXPECT_DOUBLE_EQ(e.at("token_fraction_unrounded").as_double(), 0.5);  // 120 / 240
  EXPECT_EQ(o.at("pool").at("group_sizes").as_array(), (boost::json::array{3}));
  EXPECT_DOUBLE_EQ(o.at("server").at("hit_rate").as_double(), 0.4);
  EXPECT_DOUBLE_EQ(o.at("server").at("pool_reuse").as_double(), 0.75);
  EXPECT_TRUE(o.at("agree").as_bool());
  EXPECT_TRUE(validity.valid());

  // An engine that hit only the primed prefix of one request in three disagrees.
  server.after.hit_tokens = 32;
  metrics::Validity invalid;
  o = PrefixPoolReport(s, prompts, false, 1, records, server, &invalid);
  EXPECT_NEAR(o.at("server").at("pool_reuse").as_double(), 0.25, 1e-6);
  EXPECT_FALSE(invalid.valid());
  EXPECT_EQ(invalid.reason_codes(), (std::vector<std::string>{"prefix_hits_disagree"}));
}

}  // namespace
}  // namespace servebench::client
