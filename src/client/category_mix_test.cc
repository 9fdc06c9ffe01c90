// servebench.category_mix (category_mix.h) from hand-made records: counts per category,
// completion, token means, and the per-request acceptance the server reported.
#include "client/category_mix.h"

#include <gtest/gtest.h>

namespace servebench::client {
namespace {

metrics::RequestRecord Done(int64_t index, int64_t prompt, int64_t output,
                            std::optional<double> al = std::nullopt) {
  metrics::RequestRecord r;
  r.index = index;
  r.usage_prompt_tokens = prompt;
  r.usage_completion_tokens = output;
  if (al) {
    metrics::RequestSpecStats s;
    s.mean_acceptance_length = *al;
    r.spec = s;
  }
  return r;
}

TEST(CategoryMixTest, CountsSharesTokensAndReportedAcceptancePerCategory) {
  BenchSettings s;
  s.dataset_name = "speed_bench";
  s.dataset_path = "/no/such/folder/qualitative.jsonl";  // a file: named as it is
  s.speed_bench_category = "";
  s.speed_bench_output_len = 64;
  PromptSet prompts;
  prompts.conversation_rows = 3;
  prompts.multi_turn_rows = 1;
  const std::vector<std::string> category_of = {"coding", "math", "coding", "coding"};
  std::vector<metrics::RequestRecord> records = {Done(0, 10, 64, 2.0), Done(1, 30, 60),
                                                 Done(2, 20, 64, 3.0)};
  metrics::RequestRecord failed = Done(3, 0, 0);
  failed.failure = metrics::FailureKind::kTimeout;
  records.push_back(failed);
  metrics::RequestRecord warmup = Done(0, 99, 99, 9.0);
  warmup.warmup = true;  // excluded: warm-ups are numbered in their own list
  records.push_back(warmup);

  boost::json::object mix = CategoryMixJson(s, prompts, category_of, records);
  EXPECT_EQ(mix.at("file").as_string(), "/no/such/folder/qualitative.jsonl");
  EXPECT_EQ(mix.at("subset").as_string(), "qualitative");
  EXPECT_TRUE(mix.at("category_filter").is_null());
  EXPECT_EQ(mix.at("rows").as_int64(), 3);
  EXPECT_EQ(mix.at("multi_turn_rows").as_int64(), 1);
  EXPECT_EQ(mix.at("measured_requests").as_int64(), 4);
  const boost::json::array& cats = mix.at("categories").as_array();
  ASSERT_EQ(cats.size(), 2u);
  const boost::json::object& coding = cats[0].as_object();  // by name
  EXPECT_EQ(coding.at("category").as_string(), "coding");
  EXPECT_EQ(coding.at("requests").as_int64(), 3);
  EXPECT_DOUBLE_EQ(coding.at("share_pct").as_double(), 75.0);
  EXPECT_EQ(coding.at("completed").as_int64(), 2) << "the timed-out request is not completed";
  EXPECT_DOUBLE_EQ(coding.at("completed_share_pct").as_double(), 200.0 / 3);
  EXPECT_DOUBLE_EQ(coding.at("mean_prompt_tokens").as_double(), 15.0);
  EXPECT_DOUBLE_EQ(coding.at("spec_request_mean_acceptance_length").as_double(), 2.5);
  const boost::json::object& math = cats[1].as_object();
  EXPECT_EQ(math.at("completed").as_int64(), 1);
  EXPECT_DOUBLE_EQ(math.at("mean_output_tokens").as_double(), 60.0);
  EXPECT_TRUE(math.at("spec_request_mean_acceptance_length").is_null())
      << "no per-request stats: no per-category acceptance";
}

}  // namespace
}  // namespace servebench::client
