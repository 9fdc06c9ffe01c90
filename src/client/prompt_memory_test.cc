// The prompt-memory rule: a run's prepared prompts must fit a quarter of the host's
// memory (and the hard ceiling); the refusal names what the run needs. Validate
// applies it, so InferenceX's largest fixed-length loads pass on a big enough host.
#include "client/prompt_memory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/client_settings.h"
#include "common/limits.h"

namespace servebench::client {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kGB = 1'000'000'000;

TEST(PromptMemoryTest, PromptsMayTakeAQuarterOfTheHostsMemory) {
  // conc 4096 x 10 prompts x 8192 tokens: 335,544,320 tokens, ~2.7 GB at 8 B per token.
  const double tokens = 4096.0 * 10 * 8192;
  EXPECT_TRUE(CheckPromptMemory(tokens, "load", 16 * kGB).ok());
  Status small = CheckPromptMemory(tokens, "load", 8 * kGB);
  EXPECT_EQ(small.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(small.message(), HasSubstr("load: up to 335544320 prompt tokens, ~2.7 GB prepared"));
  EXPECT_THAT(small.message(), HasSubstr("this host has 8.0 GB of memory and a run may take a "
                                         "quarter of it"));
  EXPECT_THAT(small.message(), HasSubstr("a host with at least 11 GB"));
}

TEST(PromptMemoryTest, TheHardCeilingHoldsOnAnyHost) {
  const double over = static_cast<double>(limits::kMaxPromptTokensPerRun) + 1;
  Status refused = CheckPromptMemory(over, "load", int64_t{1} << 50);
  EXPECT_THAT(refused.message(), HasSubstr("at most 2147483648 per run: use fewer or shorter"));
  EXPECT_GT(HostMemoryBytes(), 0);
}

// Output events are bounded by the same quarter: conc 16384 x 10 x 1024 output tokens,
// 168 M events of 16 B (~2.7 GB), past the old fixed 128 Mi-token bound.
TEST(PromptMemoryTest, RecordedOutputEventsMayTakeAQuarterOfTheHostsMemory) {
  const double tokens = 16384.0 * 10 * 1024;
  EXPECT_TRUE(CheckOutputMemory(tokens, "load", 16 * kGB).ok());
  Status small = CheckOutputMemory(tokens, "load", 8 * kGB);
  EXPECT_THAT(small.message(), HasSubstr("load: up to 167772160 output tokens, ~2.7 GB of "
                                         "recorded stream events"));
  EXPECT_THAT(small.message(), HasSubstr("use fewer prompts or shorter outputs"));
}

// Validate asks the rule about this host: InferenceX's conc-4096 8k point (refused by
// the old fixed 128 Mi-token bound) passes wherever a quarter of memory holds it.
TEST(PromptMemoryTest, ValidateAppliesTheRuleForThisHost) {
  BenchSettings s;
  s.model = "m";
  s.random_input_len = 8192;
  s.random_output_len = 1;
  s.num_prompts = 40960;
  s.max_concurrency = 4096;
  Status v = Validate(s);
  const double bytes = 40960.0 * 8192 * limits::kPromptBytesPerToken;
  if (bytes <= static_cast<double>(HostMemoryBytes()) / 4) {
    EXPECT_TRUE(v.ok()) << v.ToString();
  } else {
    EXPECT_THAT(v.message(), HasSubstr("--num-prompts 40960 x --random-input-len 8192"));
  }
  s.num_prompts = 1'000'000;
  s.random_input_len = 4'000'000;
  EXPECT_THAT(Validate(s).message(), HasSubstr("prompt tokens; at most 2147483648 per run"));
}

}  // namespace
}  // namespace servebench::client
